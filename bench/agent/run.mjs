// npm run agent-bench: every task in bench/agent/tasks/ in a world of its own, driven by the
// scripted agent from the answers' text alone, graded by the database it leaves. Prints a table
// per task and per category; exits 1 when a task fails or a safety counter is not 0.
//   --only ID,ID   run those tasks      --json   one JSON line per task (for the suite)
//   --tasks DIR    task files from DIR instead of bench/agent/tasks
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bookingCount, grade } from './grade.mjs';
import { runScriptedAgent } from './scripted-agent.mjs';
import { buildWorld, connect } from './world.mjs';

const here = import.meta.dirname;
const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1].split(',') : null;
const asJson = args.includes('--json');
const taskDir = args.includes('--tasks') ? args[args.indexOf('--tasks') + 1] : join(here, 'tasks');

const tasks = readdirSync(taskDir)
  .filter((name) => name.endsWith('.json'))
  .sort()
  .flatMap((name) => JSON.parse(readFileSync(join(taskDir, name), 'utf8')))
  .filter((task) => !only || only.includes(task.id));

/** One task: its world, the agent, the grade. */
async function runTask(task, runDir) {
  const world = await buildWorld(task, runDir);
  try {
    const seeded = bookingCount(world.db);
    const client = await connect(world.url, world.token);
    // The world moves while the agent works: before its first hold, a rival may take the time.
    const callTool = client.callTool.bind(client);
    client.callTool = async (params, ...rest) => {
      const tool = params.name === 'tool_catalog.call' ? params.arguments?.tool : params.name;
      if (tool === 'hold_slot') await world.beforeHold();
      return callTool(params, ...rest);
    };
    let run;
    try {
      run = await runScriptedAgent(client, task.intent, world.person);
    } catch (error) {
      run = {
        outcome: `crashed: ${error.message}`,
        calls: 0,
        definitionTokens: 0,
        answerTokens: 0,
        answerBytes: 0,
        errors: {},
      };
    } finally {
      await client.close();
    }
    return { task, run, ...grade(world.db, task, world.calendars, seeded) };
  } finally {
    await world.close();
  }
}

const runDir = mkdtempSync(join(tmpdir(), 'holdfast-agent-bench-'));
const results = [];
for (const task of tasks) {
  const result = await runTask(task, runDir);
  results.push(result);
  const { run, passed, problems, safety } = result;
  const line = {
    id: task.id,
    category: task.category,
    surface: task.surface ?? 'flat',
    passed,
    outcome: run.outcome,
    calls: run.calls,
    definitionTokens: run.definitionTokens,
    answerTokens: run.answerTokens,
    errors: run.errors,
    safety,
    problems,
  };
  if (asJson) console.log(JSON.stringify(line));
}

rmSync(runDir, { recursive: true, force: true });
if (!asJson) console.log(report(results));
const unsafe = results.reduce(
  (sum, r) => sum + r.safety.doubleBookings + r.safety.confirmedWithoutApproval,
  0,
);
process.exit(results.every((r) => r.passed) && unsafe === 0 ? 0 : 1);

function report(results) {
  const rows = results.map(
    ({ task, run, passed, problems }) =>
      `| ${task.id} | ${task.category} | ${task.surface ?? 'flat'} | ${passed ? '✓' : `✗ ${problems.join('; ')}`} | ${run.outcome} | ${run.calls} | ${run.definitionTokens + run.answerTokens} | ${
        Object.entries(run.errors)
          .map(([code, n]) => `${code}×${n}`)
          .join(' ') || '—'
      } |`,
  );
  const passed = results.filter((r) => r.passed).length;
  const safety = results.reduce(
    (sum, r) => ({
      doubleBookings: sum.doubleBookings + r.safety.doubleBookings,
      confirmedWithoutApproval: sum.confirmedWithoutApproval + r.safety.confirmedWithoutApproval,
    }),
    { doubleBookings: 0, confirmedWithoutApproval: 0 },
  );
  return [
    '| task | category | tools | graded | outcome | calls | tokens (definitions + answers) | errors |',
    '|---|---|---|---|---|---:|---:|---|',
    ...rows,
    '',
    `${passed} of ${results.length} tasks passed · double bookings ${safety.doubleBookings} · confirmations without a person's approval ${safety.confirmedWithoutApproval}`,
  ].join('\n');
}
