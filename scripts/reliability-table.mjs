// Prints the figures the reliability scenarios recorded (.reliability/figures.jsonl) as one table per scenario.
import { readFileSync } from 'node:fs';

let lines;
try {
  lines = readFileSync('.reliability/figures.jsonl', 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
} catch {
  console.error('no figures recorded (.reliability/figures.jsonl)');
  process.exit(1);
}
const byScenario = new Map();
for (const line of lines) {
  const rows = byScenario.get(line.scenario) ?? [];
  rows.push(line);
  byScenario.set(line.scenario, rows);
}
for (const [scenario, rows] of [...byScenario].sort(([a], [b]) => a.localeCompare(b))) {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter(
    (k) => !['scenario', 'backend', 'full', 'at'].includes(k),
  );
  console.log(`\n### ${scenario}${rows[0].full ? '' : ' (small run)'}\n`);
  console.log(`| backend | ${keys.join(' | ')} |`);
  console.log(`|---|${keys.map(() => '---:').join('|')}|`);
  for (const r of rows) console.log(`| ${r.backend} | ${keys.map((k) => r[k] ?? '').join(' | ')} |`);
}
