// npm test: build, then the test files with the type check beside them. Prints each phase's time
// and ends with the line CI reads: "N passed, N failed". Lint and format (`npm run check`) are
// CI's own phase: on two cores every second of CPU here is a second of waiting.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { summarize } from './test-summary.mjs';

const seconds = (since) => ((performance.now() - since) / 1000).toFixed(1);

/** Runs a command; its output is kept (quiet) or passed through. */
function run(command, args, { quiet }) {
  const begun = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let output = '';
    if (quiet)
      for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ ok: code === 0, output, seconds: seconds(begun) }));
  });
}

const started = performance.now();
// Emit only: the type check below covers the same sources.
const build = await run(
  'sh',
  [
    '-c',
    'npx tsc -p tsconfig.json --noCheck && npx tsc -p tsconfig.embed.json --noCheck && node scripts/bundle.mjs',
  ],
  {
    quiet: true,
  },
);
console.log(`build: ${build.ok ? 'ok' : 'FAILED'} (${build.seconds} s)`);
if (!build.ok) {
  process.stdout.write(build.output);
  process.exit(1);
}

const checks = Object.entries({
  typecheck: ['npx', ['tsc', '-p', 'tsconfig.check.json']],
}).map(async ([name, [command, args]]) => ({ name, ...(await run(command, args, { quiet: true })) }));

rmSync('.test-results.json', { force: true });
const tests = await run(
  'npx',
  ['vitest', 'run', '--reporter=default', '--reporter=json', '--outputFile=.test-results.json'],
  { quiet: false },
);
console.log(`\ntest files: ${tests.seconds} s`);
let checksOk = true;
for (const check of await Promise.all(checks)) {
  console.log(`${check.name}: ${check.ok ? 'ok' : 'FAILED'} (${check.seconds} s)`);
  if (!check.ok) process.stdout.write(check.output);
  checksOk &&= check.ok;
}
console.log(`npm test took ${seconds(started)} s`);
const testsOk = summarize('.test-results.json');
process.exit(testsOk && checksOk ? 0 : 1);
