// Start-up of two builds side by side: `node bench/startup-ab.mjs A_ROOT B_ROOT [runs]` spawns each
// build's `holdfast stdio` in turn (A, B, A, B, …) on its own migrated database with an owner,
// and prints the median time to the first answer to `initialize`, and through `tools/list`.
// Interleaved, so a busy moment of this shared machine hits both builds alike.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const [a, b, runsText = '15'] = process.argv.slice(2);
if (!a || !b) {
  console.error('usage: node bench/startup-ab.mjs A_ROOT B_ROOT [runs]');
  process.exit(2);
}
const roots = { A: resolve(a), B: resolve(b) };
const dir = mkdtempSync(join(tmpdir(), 'holdfast-ab-'));
const cli = (root) => join(root, 'dist/bin/holdfast.js');
const db = (key) => join(dir, key, 'holdfast.db');
const message = (body) => `${JSON.stringify({ jsonrpc: '2.0', ...body })}\n`;
const INITIALIZE = message({
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'ab', version: '1' } },
});

function once(root, database) {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [cli(root), 'stdio', '--no-seed', '--console-port', '0', '--db', database],
      {
        stdio: ['pipe', 'pipe', 'ignore'],
      },
    );
    child.stdout.setEncoding('utf8');
    let seen = '';
    let initialized = null;
    child.stdout.on('data', (chunk) => {
      seen += chunk;
      if (initialized === null && seen.includes('"id":1')) {
        initialized = performance.now() - started;
        child.stdin.write(
          message({ method: 'notifications/initialized' }) +
            message({ id: 2, method: 'tools/list', params: {} }),
        );
      } else if (initialized !== null && seen.includes('"id":2')) {
        const listed = performance.now() - started;
        child.once('exit', () => done([initialized, listed]));
        child.stdin.end();
      }
    });
    child.once('error', fail);
    child.stdin.write(INITIALIZE);
  });
}

const median = (values) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)].toFixed(0);
try {
  for (const [key, root] of Object.entries(roots)) {
    execFileSync(process.execPath, [cli(root), 'db', 'migrate', '--db', db(key)], { stdio: 'ignore' });
    execFileSync(
      process.execPath,
      [cli(root), 'users', 'add', 'ab@example.com', '--role', 'owner', '--db', db(key)],
      {
        stdio: 'ignore',
      },
    );
    await once(root, db(key));
  }
  const times = { A: [], B: [] };
  for (let i = 0; i < Number(runsText); i++)
    for (const [key, root] of Object.entries(roots)) times[key].push(await once(root, db(key)));
  for (const [key, root] of Object.entries(roots))
    console.log(
      `${key} ${root}: initialize ${median(times[key].map((t) => t[0]))} ms, through tools/list ${median(times[key].map((t) => t[1]))} ms`,
    );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
