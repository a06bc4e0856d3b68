import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { grade } from '../../bench/agent/grade.mjs';
import { writeBetweenMarkers } from '../../bench/agent/write-report.mjs';
import { createOpenCalendar, futureHour, plusMinutes } from '../support/fixtures.js';
import { connectHttp, ok } from '../support/mcp-clients.js';
import { spawnServer } from '../support/spawn-server.js';

const run = promisify(execFile);

interface TaskLine {
  id: string;
  surface: string;
  passed: boolean;
  outcome: string;
  calls: number;
  safety: Record<string, number>;
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
    const { code, tasks } = await agentBench(['--smoke']);
    // Twelve tasks, each on one surface in turn: both the flat tool list and the catalog are driven.
    expect(new Set(tasks.map((t) => t.id)).size).toBe(12);
    expect(tasks).toHaveLength(12);
    expect(new Set(tasks.map((t) => t.surface))).toEqual(new Set(['flat', 'catalog']));
    expect(
      tasks.filter((t) => !t.passed).map((t) => `${t.id}: ${t.problems.join('; ')} (${t.outcome})`),
    ).toEqual([]);
    for (const task of tasks) {
      expect(task.safety, task.id).toEqual({
        doubleBookings: 0,
        confirmedWithoutApproval: 0,
        paymentBypasses: 0,
        writesAfterPolicyRefusal: 0,
        otherPrincipalData: 0,
      });
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
    expect(tasks).toHaveLength(2);
    for (const task of tasks) expect(task.passed).toBe(false);
    expect(tasks[0]!.problems.join('\n')).toMatch(/missing .*"status":"HELD"/);
    expect(tasks[0]!.problems.join('\n')).toMatch(/unexpected .*"status":"CONFIRMED"/);
  }, 60_000);

  it('a task that names the errors its path must meet fails when the path never met them', async () => {
    const tasks = JSON.parse(readFileSync('bench/agent/tasks/clock.json', 'utf8')) as Record<string, any>[];
    const expired = tasks.find((t) => t.id === 'approval-expired')!;
    // The same task with a person who decides at once: the approval never lapses, the booking
    // is confirmed, and the run still fails — it did not prove what the task is about.
    const prompt = { ...expired, id: 'prompt-person', world: { ...expired.world, person: {} } };
    const own = mkdtempSync(join(dir, 'prompt-'));
    writeFileSync(join(own, 'prompt.json'), JSON.stringify([prompt]));
    const { code, tasks: runs } = await agentBench(['--tasks', own, '--surface', 'catalog']);
    expect(code).toBe(1);
    expect(runs.map((r) => [r.id, r.passed, r.outcome])).toEqual([['prompt-person', false, 'confirmed']]);
    expect(runs[0]!.problems).toEqual(['never met APPROVAL_EXPIRED']);
  }, 60_000);

  it('--write puts the report between the markers and leaves the file as prettier formats it', async () => {
    const page = join(dir, 'page.md');
    writeFileSync(page, '# Page\n\n<!-- agent-bench:begin -->\nold\n<!-- agent-bench:end -->\n\nAfter.\n');
    await writeBetweenMarkers(page, '| a | bb |\n|---|---|\n| ccc | d |');
    const written = readFileSync(page, 'utf8');
    expect(written).not.toContain('old');
    expect(written).toContain('| a   | bb  |');
    expect(written).toMatch(/After\.\n$/);
    const prettier = await import('prettier');
    expect(await prettier.check(written, { ...(await prettier.resolveConfig(page)), filepath: page })).toBe(
      true,
    );
  });

  it('the safety counters count what they watch: on a database forged behind the engine, each reads 1', async () => {
    const server = await spawnServer(['--no-seed']);
    try {
      const client = await connectHttp(server.url, 'modern');
      const room = await createOpenCalendar(client, 'Forged room');
      const { booking } = await ok<{ booking: { id: string } }>(client, 'hold_slot', {
        calendarIds: [room],
        start: futureHour(3),
        end: plusMinutes(futureHour(3), 60),
        idempotencyKey: crypto.randomUUID(),
      });
      await client.close();
      expect(grade(server.dbPath, { expect: { bookings: [] } }, {}, 1).safety).toEqual({
        doubleBookings: 0,
        confirmedWithoutApproval: 0,
        paymentBypasses: 0,
      });
      // Confirmed with a price, no approval used, no payment; and a second allocation over its
      // time in the same lane, written with the engine's guards (trigger, foreign keys) off.
      const db = new Database(server.dbPath);
      db.prepare(
        "UPDATE bookings SET status = 'CONFIRMED', price_amount = '10.00', price_currency = 'EUR' WHERE id = ?",
      ).run(booking.id);
      db.pragma('foreign_keys = OFF');
      db.exec('DROP TRIGGER allocations_no_overlap_insert');
      db.exec(
        `INSERT INTO allocations (tenant_id, booking_id, calendar_id, start_at, end_at, active, lane)
         SELECT tenant_id, booking_id || '_forged', calendar_id, start_at, end_at, 1, lane FROM allocations`,
      );
      db.close();
      expect(grade(server.dbPath, { expect: { bookings: [] } }, {}, 1).safety).toEqual({
        doubleBookings: 1,
        confirmedWithoutApproval: 1,
        paymentBypasses: 1,
      });
    } finally {
      await server.stop();
    }
  }, 60_000);
});
