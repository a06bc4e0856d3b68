import { describe, expect, it } from 'vitest';
import { runProcess } from '../support/spawn-server.js';

describe('bench/http-ab.mjs (smoke: the build against itself, few calls; figures mean nothing)', () => {
  it('serves both builds, drives each in turn and prints their CPU per call and the ratio', async () => {
    const run = await runProcess(process.execPath, ['bench/http-ab.mjs', '.', '.', '1', 'hold_slot'], {
      timeoutMs: 90_000,
      env: { ...process.env, HTTP_AB_CALLS: '64' },
    });
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^hold_slot, 32 clients, 64 calls a round, median of 1 interleaved rounds:$/);
    for (const [i, key] of ['A', 'B'].entries())
      expect(lines[i + 1]).toMatch(new RegExp(`^  ${key} \\S+: \\d+ µs server CPU per call, \\d+ calls/s$`));
    expect(lines[3]).toMatch(/^ {2}B's CPU per call is \d+\.\d\dx A's$/);
  }, 120_000);

  it('refuses to run without two builds, saying how to call it', async () => {
    const run = await runProcess(process.execPath, ['bench/http-ab.mjs'], { timeoutMs: 10_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('usage: node bench/http-ab.mjs A_ROOT B_ROOT');
  });
});
