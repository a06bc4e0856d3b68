// npm run dev [-- serve options]: rebuild on every change under src/ and restart the server.
// tsc watches and emits without type-checking (fast; `npm run typecheck` and your editor check
// types), the bundle is rebuilt, and `holdfast serve` restarts with the same options. Ctrl-C
// stops both. The server's own output passes through; this script's lines start with "dev:".
import { spawn } from 'node:child_process';

const serveArgs = process.argv.slice(2);
const say = (line) => process.stderr.write(`dev: ${line}\n`);
let server = null;
let stopping = false;
let builds = 0;

function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('exit', (code) => resolve(code === 0));
  });
}

function stopServer() {
  if (!server || server.exitCode !== null) return Promise.resolve();
  const exiting = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGTERM');
  return exiting;
}

async function rebuilt() {
  builds++;
  if (!(await run(process.execPath, ['scripts/bundle.mjs'])))
    return say('bundle failed; waiting for the next change');
  await stopServer();
  if (stopping) return;
  server = spawn(process.execPath, ['dist/bin/holdfast.js', 'serve', ...serveArgs], { stdio: 'inherit' });
  say(builds === 1 ? 'server started' : 'rebuilt; server restarted');
}

const tsc = spawn(
  process.execPath,
  ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json', '--watch', '--preserveWatchOutput', '--noCheck'],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
tsc.stdout.setEncoding('utf8');
// tsc ends each compile with "Found N errors. Watching for file changes."
let chain = Promise.resolve();
tsc.stdout.on('data', (text) => {
  for (const line of text.split('\n')) {
    const found = /Found (\d+) errors?\. Watching for file changes/.exec(line);
    if (!found) continue;
    if (found[1] === '0') chain = chain.then(rebuilt);
    else say(`tsc found ${found[1]} error(s); the server keeps running the last good build`);
  }
});

for (const signal of ['SIGINT', 'SIGTERM'])
  process.once(signal, async () => {
    stopping = true;
    tsc.kill('SIGTERM');
    await chain;
    await stopServer();
    process.exit(0);
  });
