import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ApprovalDetail } from '../../../src/adapters/http/console/approval-views.js';
import { decideById, decideInConsole } from '../../../src/app/approvals/approvals.js';
import { createCalendar } from '../../../src/app/calendars/calendars.js';
import { consoleApproval, approvalQueue } from '../../../src/app/console/approvals.js';
import { gatedBookingChange } from '../../../src/app/booking/gated-booking.js';
import { holdSlot } from '../../../src/app/booking/hold-slot.js';
import { setTenant } from '../../../src/app/identity/people.js';
import { getBooking } from '../../../src/app/booking/read-bookings.js';
import { releaseHold } from '../../../src/app/booking/release-hold.js';
import { sweep } from '../../../src/app/booking/sweep.js';
import type { Principal } from '../../../src/domain/identity/principal.js';
import type { DomainError } from '../../../src/domain/errors.js';
import type { Person } from '../../../src/domain/identity/identity.js';
import { appHarnessOn, operator } from '../../support/app-harness.js';

// A hold is kept for the tenant's approval window (default 30 minutes) once a person looks at the
// approval (its page or card) or decides it — never before: an agent asking alone keeps nothing
// past the hold's own 5-minute TTL, and its approval lapses with it. An approval nobody decided says so.

const T0 = Date.UTC(2030, 0, 7, 8); // Mon 7 Jan 2030, 16:00 in Shanghai
const MIN = 60_000;
const allDay = [{ start: '00:00', end: '24:00' }];
const open = { weekly: { mon: allDay, tue: allDay, wed: allDay, thu: allDay, fri: allDay }, overrides: [] };
const agent: Principal = { ...operator, writePolicy: 'draft' };
const approver: Person = {
  id: 'usr_olga',
  tenantId: operator.tenantId,
  email: 'olga@example.com',
  displayName: 'Olga Petrova',
  role: 'approver',
  passwordHash: null,
  disabledAt: null,
  createdAt: T0,
};

describe.each(['sqlite', 'postgres'] as const)('the approval window on %s', (engine) => {
  let h: Awaited<ReturnType<typeof appHarnessOn>>;
  afterEach(() => h?.close());

  async function setUp() {
    h = await appHarnessOn(engine, T0);
    const { value } = await createCalendar(h.deps, operator, {
      name: 'Jade Room',
      timeZone: 'Asia/Shanghai',
      availability: open,
      idempotencyKey: randomUUID(),
    });
    return value.id;
  }
  const hold = async (room: string, hour = 10) =>
    (
      await holdSlot(h.deps, agent, {
        calendarIds: [room],
        start: `2030-01-08T${hour}:00:00Z`,
        end: `2030-01-08T${hour + 1}:00:00Z`,
        customer: { name: 'Mei Chen' },
        idempotencyKey: randomUUID(),
      })
    ).value.booking;
  const confirm = (bookingId: string, approvalId?: string) =>
    gatedBookingChange(
      h.deps,
      agent,
      'confirm_booking',
      {
        bookingId,
        expectedVersion: 1,
        idempotencyKey: randomUUID(),
        ...(approvalId ? { approval: { approvalId } } : {}),
      },
      { traceId: '0'.repeat(32) },
    );
  const ask = async (bookingId: string) => {
    const error = (await confirm(bookingId).catch((e: unknown) => e)) as DomainError;
    expect(error.code).toBe('APPROVAL_REQUIRED');
    return error.details as unknown as { approvalId: string; expiresAt: number };
  };
  const pageText = async (approvalId: string) => {
    const card = (await consoleApproval(h.deps, approver, approvalId))!;
    const html = await Promise.resolve(
      ApprovalDetail({ card, viewer: approver, csrf: 'x', now: h.clock.now() })!.toString(),
    );
    return html.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ');
  };

  it('an agent asking alone keeps nothing longer: the approval lasts as long as the hold, and lapses with it', async () => {
    const room = await setUp();
    const held = await hold(room);
    h.clock.advance(MIN);
    const asked = await ask(held.id);
    expect(asked.expiresAt).toBe(T0 + 5 * MIN);
    expect((await getBooking(h.deps, agent, held.id)).booking.expiresAt).toBe(T0 + 5 * MIN);
    // Asking again (the agent alone) keeps nothing either.
    const again = await ask(held.id);
    expect(again.expiresAt).toBe(T0 + 5 * MIN);
    h.clock.advance(4 * MIN);
    expect((await sweep(h.deps)).expired).toBe(1);
    await expect(
      decideInConsole(h.deps, asked.approvalId, 'APPROVE', { person: approver, method: 'passkey' }),
    ).rejects.toMatchObject({ code: 'INVALID_STATE' });
  });

  it('once a person looks, the hold is kept for their window past the 5-minute TTL, and confirmed when approved at minute 25', async () => {
    const room = await setUp();
    const held = await hold(room);
    h.clock.advance(MIN);
    const asked = await ask(held.id);
    h.clock.advance(MIN);
    await pageText(asked.approvalId); // the approver opens it at minute 2
    // The engine's expiry moved; the booking's version did not (the intent asked about stays the same).
    const kept = (await getBooking(h.deps, agent, held.id)).booking;
    expect(kept).toMatchObject({ status: 'HELD', version: 1, expiresAt: T0 + 32 * MIN });
    h.clock.advance(23 * MIN); // minute 25: the agent's TTL is long gone
    expect((await sweep(h.deps)).expired).toBe(0);
    await decideInConsole(h.deps, asked.approvalId, 'APPROVE', { person: approver, method: 'passkey' });
    const done = await confirm(held.id, asked.approvalId);
    expect(done.value.booking.status).toBe('CONFIRMED');
  });

  it('a decision keeps the hold too (the operator on the command line never opened a page)', async () => {
    const room = await setUp();
    const held = await hold(room);
    const asked = await ask(held.id);
    h.clock.advance(4 * MIN);
    await decideById(h.deps, operator.tenantId, asked.approvalId, 'APPROVE', 'operator');
    expect((await getBooking(h.deps, agent, held.id)).booking.expiresAt).toBe(T0 + 34 * MIN);
    h.clock.advance(20 * MIN);
    expect((await confirm(held.id, asked.approvalId)).value.booking.status).toBe('CONFIRMED');
  });

  it('an agent’s plain hold keeps its 5-minute TTL', async () => {
    const room = await setUp();
    const held = await hold(room);
    h.clock.advance(5 * MIN);
    expect((await sweep(h.deps)).expired).toBe(1);
    expect((await getBooking(h.deps, agent, held.id)).booking.status).toBe('EXPIRED');
  });

  it('lapses at the end of the window, and the page says nobody decided in time, in the calendar’s zone', async () => {
    const room = await setUp();
    const held = await hold(room);
    const asked = await ask(held.id);
    await pageText(asked.approvalId); // looked at once, at minute 0
    h.clock.advance(30 * MIN);
    expect((await sweep(h.deps)).expired).toBe(1);
    const text = await pageText(asked.approvalId);
    expect(text).toContain('Nobody decided in time — it expired at Mon 7 Jan 2030, 16:30 (Shanghai).');
    expect(text).not.toContain('Stale');
    const queue = await approvalQueue(h.deps, approver);
    expect(queue.lapsed.map((c) => c.approval.id)).toEqual([asked.approvalId]);
    expect(queue.pending).toEqual([]);
    expect(queue.recent).toEqual([]);
    await expect(
      decideInConsole(h.deps, asked.approvalId, 'APPROVE', { person: approver, method: 'passkey' }),
    ).rejects.toMatchObject({ code: 'INVALID_STATE' });
  });

  it('follows the tenant’s own window, and looking again never keeps time past two windows', async () => {
    const room = await setUp();
    await setTenant(h.deps, operator.tenantId, { approvalWindowMinutes: 10 });
    const held = await hold(room);
    const asked = await ask(held.id);
    await pageText(asked.approvalId);
    expect((await getBooking(h.deps, agent, held.id)).booking.expiresAt).toBe(T0 + 10 * MIN);
    h.clock.advance(9 * MIN);
    await pageText(asked.approvalId);
    // Two windows from when it was held, not ten minutes from the second look.
    expect((await getBooking(h.deps, agent, held.id)).booking.expiresAt).toBe(T0 + 19 * MIN);
    h.clock.advance(10 * MIN);
    expect((await sweep(h.deps)).expired).toBe(1);
    await expect(
      setTenant(h.deps, operator.tenantId, { approvalWindowMinutes: 24 * 60 + 1 }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENTS',
      details: { field: 'approvalWindowMinutes' },
    });
  });

  it('a viewer (who may not decide) looking keeps nothing', async () => {
    const room = await setUp();
    const held = await hold(room);
    const asked = await ask(held.id);
    const viewer: Person = { ...approver, id: 'usr_vic', email: 'vic@example.com', role: 'viewer' };
    await consoleApproval(h.deps, viewer, asked.approvalId);
    expect((await getBooking(h.deps, agent, held.id)).booking.expiresAt).toBe(T0 + 5 * MIN);
  });

  it('a stale approval says what changed, and is listed apart from the waiting ones', async () => {
    const room = await setUp();
    const held = await hold(room);
    const asked = await ask(held.id);
    await releaseHold(h.deps, agent, {
      bookingId: held.id,
      expectedVersion: 1,
      idempotencyKey: randomUUID(),
    });
    const text = await pageText(asked.approvalId);
    expect(text).toContain('Changed since it was asked: its hold was released.');
    const queue = await approvalQueue(h.deps, approver);
    expect(queue.lapsed.map((c) => c.approval.id)).toEqual([asked.approvalId]);
    expect(queue.pending).toEqual([]);
  });
});
