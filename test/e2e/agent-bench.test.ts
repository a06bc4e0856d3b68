import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);

interface TaskLine {
  id: string;
  passed: boolean;
  outcome: string;
  calls: number;
  safety: { doubleBookings: number; confirmedWithoutApproval: number };
  problems: string[];
}

/** `node bench/agent/run.mjs --json …`: its exit code and one line per task. */
async function agentBench(args: string[]): Promise<{ code: number; tasks: TaskLine[] }> {
  const done = await run(process.execPath, ['bench/agent/run.mjs', '--json', ...args], {
    maxBuffer: 1 << 24,
  }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
  const tasks = done.stdout
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as TaskLine);
  return { code: done.code, tasks };
}

const dir = mkdtempSync(join(tmpdir(), 'agent-bench-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the agent benchmark (npm run agent-bench), smoke', () => {
  it('the scripted agent finishes every task of the smoke set from the answers’ text alone, and nothing unsafe happened', async () => {
    const { code, tasks } = await agentBench([]);
    expect(tasks.length).toBeGreaterThanOrEqual(10);
    expect(
      tasks.filter((t) => !t.passed).map((t) => `${t.id}: ${t.problems.join('; ')} (${t.outcome})`),
    ).toEqual([]);
    for (const task of tasks) {
      expect(task.safety, task.id).toEqual({ doubleBookings: 0, confirmedWithoutApproval: 0 });
      expect(task.calls, task.id).toBeLessThanOrEqual(12);
    }
    expect(code).toBe(0);
  }, 180_000);

  it('the grader fails a task whose final state is not the one asked for', async () => {
    const [plain] = JSON.parse(readFileSync('bench/agent/tasks/booking.json', 'utf8')) as Record<
      string,
      any
    >[];
    // The same world and intent, graded against a state it does not reach: held, not confirmed.
    const wrong = {
      ...plain,
      id: 'wrong-expectation',
      expect: { bookings: [{ ...plain!.expect.bookings[0], status: 'HELD' }] },
    };
    writeFileSync(join(dir, 'wrong.json'), JSON.stringify([wrong]));
    const { code, tasks } = await agentBench(['--tasks', dir]);
    expect(code).toBe(1);
    expect(tasks).toHaveLength(1);
    expect(tasks[0]!.passed).toBe(false);
    expect(tasks[0]!.problems.join('\n')).toMatch(/missing .*"status":"HELD"/);
    expect(tasks[0]!.problems.join('\n')).toMatch(/unexpected .*"status":"CONFIRMED"/);
  }, 60_000);
});
