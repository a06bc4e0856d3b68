import { describe, expect, it } from 'vitest';
import { runProcess } from '../support/spawn-server.js';

describe('bench/startup-ab.mjs (smoke: the build against itself, two rounds; figures mean nothing)', () => {
  it('spawns both builds’ stdio in turn and prints each one’s median times', async () => {
    const run = await runProcess(process.execPath, ['bench/startup-ab.mjs', '.', '.', '2'], {
      timeoutMs: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const [i, key] of ['A', 'B'].entries())
      expect(lines[i]).toMatch(new RegExp(`^${key} \\S+: initialize \\d+ ms, through tools/list \\d+ ms$`));
  }, 90_000);

  it('refuses to run without two builds, saying how to call it', async () => {
    const run = await runProcess(process.execPath, ['bench/startup-ab.mjs'], { timeoutMs: 10_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('usage: node bench/startup-ab.mjs A_ROOT B_ROOT');
  });
});
