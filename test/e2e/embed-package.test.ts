import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installPackedPackage } from '../support/packed-package.js';
import { runCli } from '../support/spawn-server.js';

const run = promisify(execFile);

// The package as a user installs it (test/support/packed-package.ts); an application imports it by name.
let dir: string;
let app: string;
beforeAll(async () => {
  ({ dir, app } = await installPackedPackage());
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const APP = `
import { createHoldfast, DomainError } from 'holdfast';
const db = process.argv[2];
const hf = await createHoldfast({ database: db, actAs: 'owner@example.com' });
const out = { actingFor: hf.actingFor };
const weekdays = { weekly: { mon: [{ start: '00:00', end: '24:00' }], tue: [{ start: '00:00', end: '24:00' }],
  wed: [{ start: '00:00', end: '24:00' }], thu: [{ start: '00:00', end: '24:00' }], fri: [{ start: '00:00', end: '24:00' }],
  sat: [{ start: '00:00', end: '24:00' }], sun: [{ start: '00:00', end: '24:00' }] }, overrides: [] };
const room = await hf.createCalendar({ name: 'Studio', timeZone: 'Europe/Berlin', availability: weekdays, tags: ['photo'] });
const from = new Date(Date.now() + 2 * 86400000);
from.setUTCHours(9, 0, 0, 0);
const to = new Date(from.getTime() + 4 * 3600000);
const found = await hf.findSlots({ query: 'photo', from: from.toISOString(), to: to.toISOString(), durationMinutes: 60, limit: 3 });
out.slots = found.slots.length;
out.slotCalendar = found.slots[0].calendarId === room.id;
const slot = { calendarIds: [room.id], start: new Date(found.slots[0].start).toISOString(), end: new Date(found.slots[0].end).toISOString() };
const held = await hf.holdSlot({ ...slot, customer: { name: 'Ana' } });
out.held = held.status;
try {
  await hf.holdSlot(slot);
} catch (error) {
  out.second = error instanceof DomainError ? error.code : 'not a DomainError';
}
const pending = await hf.requestApproval({ bookingId: held.id, action: 'confirm_booking' });
out.approveUrl = pending.approveUrl.includes(pending.approvalId);
for (const approvalId of ['apr_made_up', pending.approvalId]) {
  try {
    await hf.confirmBooking({ bookingId: held.id, expectedVersion: held.version, approvalId });
    out.unapproved = (out.unapproved ?? []).concat('CONFIRMED');
  } catch (error) {
    out.unapproved = (out.unapproved ?? []).concat(error.code);
  }
}
await hf.decideApproval({ approvalId: pending.approvalId, decision: 'APPROVE', by: 'owner@example.com' });
const key = '6f1d2a3c-1b2c-4d5e-8f90-112233445566';
const confirmed = await hf.confirmBooking({ bookingId: held.id, expectedVersion: held.version, approvalId: pending.approvalId, idempotencyKey: key });
const again = await hf.confirmBooking({ bookingId: held.id, expectedVersion: held.version, approvalId: pending.approvalId, idempotencyKey: key });
out.confirmed = confirmed.status;
out.replayed = again.version === confirmed.version && again.status === 'CONFIRMED';
out.read = (await hf.getBooking(held.id)).status;
await hf.close();
console.log(JSON.stringify(out));
`;

describe('the embedding API, imported from the packed package', () => {
  it('books through createHoldfast: find by need, hold, a person approves, confirm once; every write audited', async () => {
    writeFileSync(join(app, 'app.mjs'), APP);
    const db = join(dir, 'embedded.db');
    const { stdout } = await run(process.execPath, ['app.mjs', db], { cwd: app });
    const out = JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, unknown>;
    expect(out).toMatchObject({
      slots: 3,
      slotCalendar: true,
      held: 'HELD',
      second: 'SLOT_UNAVAILABLE',
      approveUrl: true,
      confirmed: 'CONFIRMED',
      replayed: true,
      read: 'CONFIRMED',
    });
    // No approval, no confirmation: a made-up approval and one nobody decided yet are refused.
    expect(out.unapproved).toEqual(['NOT_FOUND', 'APPROVAL_PENDING']);
    // The same database, read by the command line: the calls are in the audit trail, chained.
    const verified = await runCli(['audit', 'verify', '--db', db]);
    expect(verified.status, verified.stdout + verified.stderr).toBe(0);
    const tail = await runCli(['audit', 'tail', '-n', '20', '--json', '--db', db]);
    const tools = tail.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { tool: string; transport: string })
      .map((e) => `${e.transport}:${e.tool}`);
    for (const tool of [
      'create_calendar',
      'hold_slot',
      'request_approval',
      'decide_approval',
      'confirm_booking',
    ])
      expect(tools).toContain(`embedded:${tool}`);
  }, 60_000);

  it('its types are the published ones: a typed application compiles, a wrong call does not', async () => {
    const good = `import { createHoldfast, DomainError, type Booking } from 'holdfast';
const hf = await createHoldfast({ database: 'x.db', actAs: 'a@example.com' });
const b: Booking = await hf.holdSlot({ calendarIds: ['cal_1'], start: '2030-01-01T09:00:00Z', end: '2030-01-01T10:00:00Z' });
const code: string = new DomainError('NOT_FOUND', 'x').code;
console.log(b.status, code);
`;
    const bad = `import { createHoldfast } from 'holdfast';
const hf = await createHoldfast({ database: 'x.db', actAs: 'a@example.com' });
await hf.holdSlot({ calendarIds: 'cal_1', start: 1 });
`;
    const tsc = join(process.cwd(), 'node_modules', 'typescript', 'bin', 'tsc');
    const options = [
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--skipLibCheck',
      'false',
    ];
    writeFileSync(join(app, 'good.mts'), good);
    writeFileSync(join(app, 'bad.mts'), bad);
    // One compiler run over both: the errors it reports must all be the wrong call's.
    const typeRoots = join(process.cwd(), 'node_modules/@types');
    const report = await run(
      process.execPath,
      [tsc, ...options, '--types', 'node', '--typeRoots', typeRoots, 'good.mts', 'bad.mts'],
      {
        cwd: app,
      },
    ).then(
      () => 'compiled',
      (error: { stdout: string }) => error.stdout,
    );
    const errors = report.split('\n').filter((line) => /error TS/.test(line));
    expect(errors.length, report).toBeGreaterThan(0);
    expect(
      errors.filter((line) => !line.startsWith('bad.mts')),
      report,
    ).toEqual([]);
  }, 120_000);
});
