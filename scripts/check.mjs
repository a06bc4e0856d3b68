// The static checks of `npm test`, side by side (each is one process; together they keep both cores
// busy): type check, lint, format check and the build. The build emits without checking types,
// since the type check beside it covers the same sources. Prints each one's time; fails if any fails.
import { spawn } from 'node:child_process';

const checks = [
  ['typecheck', 'npx', ['tsc', '-p', 'tsconfig.check.json']],
  ['lint', 'npx', ['eslint', '.']],
  ['format', 'npx', ['prettier', '--check', '--log-level', 'warn', '.']],
  ['build', 'sh', ['-c', 'npx tsc -p tsconfig.json --noCheck && node scripts/executable-bin.mjs']],
];

const started = performance.now();
const results = await Promise.all(
  checks.map(
    ([name, command, args]) =>
      new Promise((resolve) => {
        const begun = performance.now();
        const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', (chunk) => (output += chunk));
        child.stderr.on('data', (chunk) => (output += chunk));
        child.on('close', (code) =>
          resolve({ name, code, output, seconds: (performance.now() - begun) / 1000 }),
        );
      }),
  ),
);
for (const { name, code, output, seconds } of results) {
  console.log(`${code === 0 ? 'ok  ' : 'FAIL'} ${name} (${seconds.toFixed(1)} s)`);
  if (code !== 0) process.stdout.write(output);
}
console.log(`checks took ${((performance.now() - started) / 1000).toFixed(1)} s`);
process.exit(results.every((r) => r.code === 0) ? 0 : 1);
