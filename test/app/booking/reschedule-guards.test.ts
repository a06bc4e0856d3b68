import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { setBookingRules } from '../../../src/app/calendars/calendars.js';
import { gatedBookingChange } from '../../../src/app/booking/gated-booking.js';
import { holdSlot } from '../../../src/app/booking/hold-slot.js';
import { rescheduleBooking } from '../../../src/app/booking/reschedule.js';
import { DomainError } from '../../../src/domain/errors.js';
import { appHarness, operator } from '../../support/app-harness.js';
import { openAllWeek } from '../../support/fixtures.js';

// What the review of reschedule_booking found, each attacked the way an agent would.

const H = 3_600_000;
const MONDAY = Date.parse('2030-01-07T00:00:00Z');
const iso = (t: number) => new Date(t).toISOString();
let harness: Awaited<ReturnType<typeof appHarness>>;
afterEach(async () => harness?.close());

async function setup(rules: Record<string, unknown> = {}) {
  harness = await appHarness(MONDAY - 2 * 24 * H);
  const calendarId = await harness.calendar('Room', 'UTC', openAllWeek);
  if (Object.keys(rules).length > 0)
    await setBookingRules(harness.deps, operator, { calendarId, rules, idempotencyKey: randomUUID() });
  return calendarId;
}

async function confirmed(calendarId: string, start: number, end: number) {
  const { value } = await holdSlot(harness.deps, operator, {
    calendarIds: [calendarId],
    start: iso(start),
    end: iso(end),
    idempotencyKey: randomUUID(),
  });
  return confirm(value.booking.id, value.booking.version);
}

async function confirm(bookingId: string, expectedVersion: number) {
  const done = await gatedBookingChange(
    harness.deps,
    operator,
    'confirm_booking',
    { bookingId, expectedVersion, idempotencyKey: randomUUID() },
    { traceId: 'test' },
  );
  return done.value.booking;
}

const move = (bookingId: string, start: number, end: number, idempotencyKey = randomUUID()) =>
  rescheduleBooking(harness.deps, operator, { bookingId, start: iso(start), end: iso(end), idempotencyKey });

async function codeOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
    return 'ok';
  } catch (error) {
    return error instanceof DomainError
      ? `${error.code}${error.details && 'rule' in error.details ? `:${String(error.details.rule)}` : ''}`
      : 'thrown';
  }
}

describe('moving a booking cannot be turned against its rules', () => {
  it('a booking that has begun is not moved, nor is a move confirmed once the old time has come', async () => {
    const calendarId = await setup();
    const past = await confirmed(calendarId, MONDAY + 10 * H, MONDAY + 11 * H);
    const pending = await confirmed(calendarId, MONDAY + 12 * H, MONDAY + 13 * H);
    // Two minutes before the booking begins its move is held; three minutes later (the hold lives five) it is confirmed.
    harness.clock.set(MONDAY + 12 * H - 2 * 60_000);
    const replacement = (await move(pending.id, MONDAY + 5 * 24 * H, MONDAY + 5 * 24 * H + H)).value.booking;
    harness.clock.set(MONDAY + 12 * H + 60_000);
    expect(await codeOf(move(past.id, MONDAY + 7 * 24 * H, MONDAY + 7 * 24 * H + H))).toBe('INVALID_STATE');
    expect(await codeOf(confirm(replacement.id, replacement.version))).toBe('INVALID_STATE');
  });

  it('a move inside its own overnight time cannot overfill the next day once confirmed', async () => {
    const calendarId = await setup({ maxBookingsPerDay: 1 });
    const overnight = await confirmed(calendarId, MONDAY + 20 * H, MONDAY + 28 * H);
    // Tuesday 01:00-02:00 lies inside the old time: the move holds nothing new.
    const replacement = (await move(overnight.id, MONDAY + 25 * H, MONDAY + 26 * H)).value.booking;
    await confirmed(calendarId, MONDAY + 34 * H, MONDAY + 35 * H); // Tuesday 10:00, the day's one booking
    expect(await codeOf(confirm(replacement.id, replacement.version))).toBe(
      'OUTSIDE_BOOKING_RULES:maxBookingsPerDay',
    );
    const old = await harness.deps.store.read((tx) => tx.bookings.get(operator.tenantId, overnight.id));
    expect(old?.status).toBe('CONFIRMED');
  });

  it('buffers raised after the move was held refuse its confirmation cleanly, not INTERNAL', async () => {
    const calendarId = await setup();
    const booking = await confirmed(calendarId, MONDAY + 10 * H, MONDAY + 11 * H);
    const week = (await move(booking.id, MONDAY + 2 * 24 * H, MONDAY + 9 * 24 * H)).value.booking;
    await setBookingRules(harness.deps, operator, {
      calendarId,
      rules: { bufferAfterMinutes: 60 },
      idempotencyKey: randomUUID(),
    });
    expect(await codeOf(confirm(week.id, week.version))).toBe('INVALID_STATE');
  });

  it('a retried move replays, even after it was confirmed', async () => {
    const calendarId = await setup();
    const booking = await confirmed(calendarId, MONDAY + 10 * H, MONDAY + 11 * H);
    const key = randomUUID();
    const first = (await move(booking.id, MONDAY + 30 * H, MONDAY + 31 * H, key)).value.booking;
    await confirm(first.id, first.version);
    const again = await move(booking.id, MONDAY + 30 * H, MONDAY + 31 * H, key);
    expect(again.replayed).toBe(true);
    expect(again.value.booking.id).toBe(first.id);
    expect(await codeOf(move(booking.id, MONDAY + 40 * H, MONDAY + 41 * H, key))).toBe(
      'IDEMPOTENCY_CONFLICT',
    );
  });
});
