import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { offsetFileClock } from '../../src/adapters/clock/offset-file-clock.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import { runCli, spawnServer, tempDbPath } from '../support/spawn-server.js';

const MINUTE = 60_000;
const dir = mkdtempSync(join(tmpdir(), 'holdfast-dev-clock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--dev-clock: time moved by a file, for the server and its commands at once', () => {
  it('reads the offset on every call; a missing file is the real time; a typo is an error, never real time', () => {
    const file = join(dir, 'unit');
    const clock = offsetFileClock(file);
    const before = Date.now();
    expect(clock.now() - before).toBeLessThan(MINUTE);
    writeFileSync(file, String(10 * MINUTE));
    expect(clock.now() - before).toBeGreaterThanOrEqual(10 * MINUTE);
    writeFileSync(file, '10m');
    expect(() => clock.now()).toThrow(/expected whole milliseconds/);
  });

  it('ten minutes written to the file lapse a 5-minute hold; forty lapse the approval the operator then tries to decide', async () => {
    const file = join(dir, 'clock');
    writeFileSync(file, '0');
    const server = await spawnServer(['--no-seed', '--dev-clock', file]);
    try {
      expect(server.logs.join('')).toContain('--dev-clock');
      const client = await connectHttp(server.url, 'modern');
      const room = await createOpenCalendar(client, 'Jade');
      const hold = async () =>
        (
          await ok<{ booking: { id: string; version: number } }>(client, 'hold_slot', {
            calendarIds: [room],
            start: futureHour(3),
            end: futureHour(3, 1),
            customer: { name: 'Ana' },
            idempotencyKey: randomUUID(),
          })
        ).booking;
      const first = await hold();
      writeFileSync(file, String(10 * MINUTE));
      const lapsed = await call(client, 'confirm_booking', {
        bookingId: first.id,
        expectedVersion: first.version,
        idempotencyKey: randomUUID(),
      });
      expect(lapsed.error?.code).toBe('HOLD_EXPIRED');
      // The time is free again at the moved time: a new hold of the same hour succeeds.
      const second = await hold();
      const asked = await call(client, 'confirm_booking', {
        bookingId: second.id,
        expectedVersion: second.version,
        idempotencyKey: randomUUID(),
      });
      const approvalId = asked.error!.details.approvalId as string;
      // The operator's command reads the same file: 31 minutes later the approval has lapsed.
      writeFileSync(file, String(41 * MINUTE));
      const late = await runCli([
        'approvals',
        'approve',
        approvalId,
        '--db',
        server.dbPath,
        '--dev-clock',
        file,
      ]);
      expect(late.status).not.toBe(0);
      expect(late.stderr).toMatch(/expired/i);
      // Without the file the same command runs on the real time, where the approval still waits.
      const onTime = await runCli(['approvals', 'approve', approvalId, '--db', server.dbPath]);
      expect(onTime.status).toBe(0);
    } finally {
      await server.stop();
    }
  });

  it('is refused in production', async () => {
    const db = tempDbPath();
    try {
      const refused = await runCli([
        'approvals',
        'list',
        '--production',
        '--dev-clock',
        join(dir, 'clock'),
        '--db',
        db.path,
      ]);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toContain('--dev-clock (a clock moved by a file) cannot run in production');
    } finally {
      db.cleanup();
    }
  });
});
