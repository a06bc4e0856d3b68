import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { holdSlot } from '../../../src/app/booking/hold-slot.js';
import {
  createCalendar,
  getCalendar,
  listCalendars,
  setAvailability,
  setBookingRules,
} from '../../../src/app/calendars/calendars.js';
import type { Principal } from '../../../src/domain/identity/principal.js';
import { appHarness, operator } from '../../support/app-harness.js';
import { refusal } from '../../support/refusal.js';

// Monday 2030-01-07 08:00 UTC.
const T0 = Date.UTC(2030, 0, 7, 8);
const nineToFive = { weekly: { mon: [{ start: '09:00', end: '17:00' }] }, overrides: [] };
const reader: Principal = { ...operator, subject: 'reader', scopes: ['read'] };
const otherTenant: Principal = { ...operator, tenantId: 't2', subject: 'someone-else' };

let h: Awaited<ReturnType<typeof appHarness>>;
beforeEach(async () => {
  h = await appHarness(T0, { maxCalendarsPerTenant: 3 });
});
afterEach(() => h.close());

const create = (principal: Principal, name: string, key = randomUUID()) =>
  createCalendar(h.deps, principal, {
    name,
    timeZone: 'Europe/Berlin',
    availability: nineToFive,
    idempotencyKey: key,
  });

describe('calendar use cases', () => {
  it('creates once per key: a retry replays the same calendar, another request under the key is refused', async () => {
    const key = randomUUID();
    const first = await create(operator, 'Berlin desk', key);
    const again = await create(operator, 'Berlin desk', key);
    expect(again.replayed).toBe(true);
    expect(again.value.id).toBe(first.value.id);
    expect((await refusal(create(operator, 'Other name', key))).code).toBe('IDEMPOTENCY_CONFLICT');
    expect((await listCalendars(h.deps, operator, { limit: 10 })).total).toBe(1);
  });

  it('refuses a bad zone, a bad week and a bad price naming the field, and stores nothing', async () => {
    const zone = await refusal(
      createCalendar(h.deps, operator, { name: 'x', timeZone: 'Mars/Olympus', idempotencyKey: randomUUID() }),
    );
    expect([zone.code, zone.details.field]).toEqual(['INVALID_ARGUMENTS', 'timeZone']);
    const week = await refusal(
      createCalendar(h.deps, operator, {
        name: 'x',
        timeZone: 'UTC',
        availability: { weekly: { mon: [{ start: '17:00', end: '09:00' }] }, overrides: [] },
        idempotencyKey: randomUUID(),
      }),
    );
    expect(week.code).toBe('INVALID_ARGUMENTS');
    const price = await refusal(
      createCalendar(h.deps, operator, {
        name: 'x',
        timeZone: 'UTC',
        price: { amount: '-5.00', currency: 'EUR' },
        idempotencyKey: randomUUID(),
      }),
    );
    expect([price.code, String(price.details.field)]).toEqual(['INVALID_ARGUMENTS', 'price.amount']);
    expect((await listCalendars(h.deps, operator, { limit: 10 })).total).toBe(0);
  });

  it('stops at the tenant quota, counts per tenant, and lets a reader look but not create', async () => {
    for (const name of ['a', 'b', 'c']) await create(operator, name);
    const full = await refusal(create(operator, 'd'));
    expect([full.code, full.details]).toEqual(['QUOTA_EXCEEDED', { quota: 'calendars', limit: 3 }]);
    await create(otherTenant, 'theirs');
    expect((await refusal(create(reader, 'e'))).code).toBe('FORBIDDEN');
    expect((await listCalendars(h.deps, reader, { limit: 10 })).total).toBe(3);
  });

  it('pages with a cursor bound to its query, and a tampered cursor is refused', async () => {
    for (const name of ['a', 'b', 'c']) await create(operator, name);
    const first = await listCalendars(h.deps, operator, { limit: 2 });
    expect(first.calendars).toHaveLength(2);
    const rest = await listCalendars(h.deps, operator, { limit: 2, cursor: first.nextCursor! });
    expect(rest.calendars).toHaveLength(1);
    expect(rest.nextCursor).toBeNull();
    const names = [...first.calendars, ...rest.calendars].map((c) => c.name).sort();
    expect(names).toEqual(['a', 'b', 'c']);
    const tampered = await refusal(
      listCalendars(h.deps, operator, { limit: 2, cursor: `${first.nextCursor!}x` }),
    );
    expect(tampered.code).toBe('INVALID_CURSOR');
  });

  it('keeps tenants apart: another tenant’s calendar is as unknown as a made-up id', async () => {
    const { value } = await create(operator, 'mine');
    const theirs = await refusal(getCalendar(h.deps, otherTenant, value.id));
    const madeUp = await refusal(getCalendar(h.deps, otherTenant, 'cal_made_up'));
    expect(theirs.code).toBe('NOT_FOUND');
    expect(theirs.message.replace(value.id, 'ID')).toBe(madeUp.message.replace('cal_made_up', 'ID'));
  });

  it('a new week and new rules apply to the next hold at once, each moving the version once', async () => {
    const { value: calendar } = await create(operator, 'desk');
    const hold = (start: string, end: string) =>
      holdSlot(h.deps, operator, { calendarIds: [calendar.id], start, end, idempotencyKey: randomUUID() });
    expect((await refusal(hold('2030-01-07T18:00:00Z', '2030-01-07T19:00:00Z'))).code).toBe(
      'OUTSIDE_AVAILABILITY',
    );
    const late = { weekly: { mon: [{ start: '09:00', end: '22:00' }] }, overrides: [] };
    const key = randomUUID();
    const widened = await setAvailability(h.deps, operator, {
      calendarId: calendar.id,
      availability: late,
      idempotencyKey: key,
    });
    await setAvailability(h.deps, operator, {
      calendarId: calendar.id,
      availability: late,
      idempotencyKey: key,
    });
    expect(widened.value.version).toBe(2);
    expect((await getCalendar(h.deps, operator, calendar.id)).version).toBe(2);
    await hold('2030-01-07T18:00:00Z', '2030-01-07T19:00:00Z');
    await setBookingRules(h.deps, operator, {
      calendarId: calendar.id,
      rules: { allowedDurationsMinutes: [30] },
      idempotencyKey: randomUUID(),
    });
    const length = await refusal(hold('2030-01-07T20:00:00Z', '2030-01-07T21:00:00Z'));
    expect([length.code, length.details.rule]).toEqual(['OUTSIDE_BOOKING_RULES', 'allowedDurations']);
    await hold('2030-01-07T20:00:00Z', '2030-01-07T20:30:00Z');
  });

  it('refuses changes to a calendar that is not there, and rules out of range naming the rule', async () => {
    const missing = await refusal(
      setAvailability(h.deps, operator, {
        calendarId: 'cal_nope',
        availability: nineToFive,
        idempotencyKey: randomUUID(),
      }),
    );
    expect(missing.code).toBe('NOT_FOUND');
    const { value: calendar } = await create(operator, 'desk');
    const bad = await refusal(
      setBookingRules(h.deps, operator, {
        calendarId: calendar.id,
        rules: { minimumNoticeMinutes: -1 },
        idempotencyKey: randomUUID(),
      }),
    );
    expect(bad.code).toBe('INVALID_ARGUMENTS');
    expect(JSON.stringify(bad.details)).toContain('minimumNoticeMinutes');
    expect((await getCalendar(h.deps, operator, calendar.id)).version).toBe(1);
  });
});
