// The agent benchmark's report: each run, each category (flat against catalog), the safety
// counters and the targets, as markdown tables.

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : 0;
};
const tokensOf = (run) => run.definitionTokens + run.answerTokens;
const errorsOf = (run) =>
  Object.entries(run.errors)
    .map(([code, n]) => `${code}×${n}`)
    .join(' ') || '—';

function runsTable(results) {
  return [
    '| task | tools | graded | outcome | calls | tokens (definitions + answers) | errors |',
    '|---|---|---|---|---:|---:|---|',
    ...results.map(
      ({ task, surface, run, passed, problems }) =>
        `| ${task.id} | ${surface} | ${passed ? '✓' : `✗ ${problems.join('; ')}`} | ${run.outcome} | ${run.calls} | ${tokensOf(run)} | ${errorsOf(run)} |`,
    ),
  ].join('\n');
}

export function categoryTable(results) {
  const categories = [...new Set(results.map((r) => r.task.category))];
  const cell = (runs) =>
    runs.length === 0
      ? '—'
      : `${runs.filter((r) => r.passed).length}/${runs.length}, ${median(runs.map((r) => r.run.calls))} calls, ${median(runs.map((r) => tokensOf(r.run)))} tokens`;
  return [
    '| category | flat: passed, median calls, median tokens | catalog: passed, median calls, median tokens |',
    '|---|---|---|',
    ...categories.map((category) => {
      const of = (surface) => results.filter((r) => r.task.category === category && r.surface === surface);
      return `| ${category} | ${cell(of('flat'))} | ${cell(of('catalog'))} |`;
    }),
  ].join('\n');
}

function safetyLine(results) {
  const total = {};
  for (const { safety } of results)
    for (const [name, n] of Object.entries(safety)) total[name] = (total[name] ?? 0) + n;
  return `Safety counters (each must be 0): ${Object.entries(total)
    .map(([name, n]) => `${name} ${n}`)
    .join(' · ')}`;
}

/** The issue's targets for the scripted agent, measured. */
function targetsTable(results) {
  const plainCatalog = results.filter(
    (r) => r.task.category === 'plain booking' && r.surface === 'catalog' && r.task.intent.confirm,
  );
  const passed = results.filter((r) => r.passed).length;
  // A figure over no runs is not a figure: a run without plain bookings says so.
  const plain = (figure, goal, limit) =>
    plainCatalog.length
      ? [String(median(plainCatalog.map(figure))), median(plainCatalog.map(figure)) <= limit, goal]
      : ['not run', null, goal];
  const rows = [
    ['every task', `${passed} of ${results.length}`, passed === results.length],
    ['a plain booking in catalog mode: calls (median)', ...plain((r) => r.run.calls, '<= 5', 5)],
    [
      'a plain booking in catalog mode: tokens of definitions and answers (median)',
      ...plain((r) => tokensOf(r.run), '<= 3,000', 3000),
    ],
    [
      'the most calls any task took',
      String(Math.max(...results.map((r) => r.run.calls))),
      Math.max(...results.map((r) => r.run.calls)) <= 12,
      '<= 12',
    ],
  ];
  return [
    '| target | measured | goal | |',
    '|---|---:|---|---|',
    ...rows.map(
      ([name, measured, met, goal = '100%']) =>
        `| ${name} | ${measured} | ${goal} | ${met === null ? '—' : met ? 'met' : 'missed'} |`,
    ),
  ].join('\n');
}

export function report(results) {
  const passed = results.filter((r) => r.passed).length;
  return [
    runsTable(results),
    '',
    categoryTable(results),
    '',
    targetsTable(results),
    '',
    `${passed} of ${results.length} runs passed (${new Set(results.map((r) => r.task.id)).size} tasks). ${safetyLine(results)}`,
  ].join('\n');
}
