import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findSlotsByNeed } from '../../../src/app/booking/find-slots-by-need.js';
import { holdSlot } from '../../../src/app/booking/hold-slot.js';
import { createCalendar, listCalendars, setBookingRules } from '../../../src/app/calendars/calendars.js';
import { updateCalendarDetails } from '../../../src/app/calendars/calendar-edits.js';
import { setTenant } from '../../../src/app/identity/people.js';
import { appHarness, operator } from '../../support/app-harness.js';
import { refusal } from '../../support/refusal.js';

// Monday 2030-01-07 06:00 UTC.
const T0 = Date.UTC(2030, 0, 7, 6);
const hours = (start: string, end: string) => ({
  weekly: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, [{ start, end }]])),
  overrides: [],
});

let h: Awaited<ReturnType<typeof appHarness>>;
const ids: Record<string, string> = {};
const make = async (
  key: string,
  name: string,
  zone: string,
  description: string,
  tags: string[],
  open = hours('09:00', '11:00'),
) => {
  const { value } = await createCalendar(h.deps, operator, {
    name,
    timeZone: zone,
    availability: open,
    description,
    tags,
    idempotencyKey: randomUUID(),
  });
  ids[key] = value.id;
  h.clock.advance(1000); // calendars list oldest first
};
beforeEach(async () => {
  h = await appHarness(T0);
  await make('vogel', 'Dr. Lena Vogel', 'Europe/Berlin', 'Physiotherapy for sports injuries', [
    'physiotherapy',
    'German',
  ]);
  await make('reed', 'Sam Reed', 'Europe/London', 'Physiotherapy and massage', ['physiotherapy', 'English']);
  await make('room', 'Jade Room', 'Asia/Shanghai', 'Meeting room with a projector', ['projector']);
});
afterEach(() => h.close());

const search = (query: string, extra: { limit?: number; cursor?: string; durationMinutes?: number } = {}) =>
  findSlotsByNeed(h.deps, operator, {
    query,
    from: '2030-01-07T00:00:00Z',
    to: '2030-01-08T00:00:00Z',
    durationMinutes: extra.durationMinutes ?? 60,
    stepMinutes: 30,
    limit: extra.limit ?? 100,
    ...(extra.cursor ? { cursor: extra.cursor } : {}),
  });

describe('find_slots by need', () => {
  it('searches every calendar whose words match, each slot naming its calendar, earliest first', async () => {
    const found = await search('physiotherapy');
    expect(found.calendarsMatched).toBe(2);
    expect(found.calendars.map((c) => c.id)).toEqual([ids.vogel, ids.reed]);
    // Berlin 09:00-11:00 is 08:00-10:00 UTC; London 09:00-11:00 is 09:00-11:00 UTC; 60 min on a 30-min grid.
    expect(found.slots.map((s) => [new Date(s.start).toISOString().slice(11, 16), s.calendarId])).toEqual([
      ['08:00', ids.vogel],
      ['08:30', ids.vogel],
      ['09:00', ids.vogel],
      ['09:00', ids.reed],
      ['09:30', ids.reed],
      ['10:00', ids.reed],
    ]);
    expect((await search('physiotherapy german')).calendars.map((c) => c.id)).toEqual([ids.vogel]);
    expect((await search('dentist')).slots).toEqual([]);
  });

  it('pages across calendars without losing or repeating a slot, the cursor bound to the words', async () => {
    const whole = await search('physiotherapy');
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await search('physiotherapy', { limit: 4, ...(cursor ? { cursor } : {}) });
      seen.push(...page.slots.map((s) => `${s.start}/${s.calendarId}`));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(whole.slots.map((s) => `${s.start}/${s.calendarId}`));
    const first = await search('physiotherapy', { limit: 2 });
    expect((await refusal(search('projector', { cursor: first.nextCursor! }))).code).toBe('INVALID_CURSOR');
  });

  it('takes a held time away from that calendar only, and skips calendars that never take the length', async () => {
    await holdSlot(h.deps, operator, {
      calendarIds: [ids.vogel!],
      start: '2030-01-07T08:00:00Z',
      end: '2030-01-07T09:00:00Z',
      idempotencyKey: randomUUID(),
    });
    const after = await search('physiotherapy');
    expect(
      after.slots
        .filter((s) => s.calendarId === ids.vogel)
        .map((s) => new Date(s.start).toISOString().slice(11, 16)),
    ).toEqual(['09:00']);
    expect(after.slots.filter((s) => s.calendarId === ids.reed)).toHaveLength(3);
    await setBookingRules(h.deps, operator, {
      calendarId: ids.reed!,
      rules: { allowedDurationsMinutes: [30] },
      idempotencyKey: randomUUID(),
    });
    const longer = await search('physiotherapy');
    expect(longer.calendarsMatched).toBe(2);
    expect(longer.calendars.map((c) => c.id)).toEqual([ids.vogel]);
  });

  it('finds a calendar by words given later, and list_calendars filters by the same words', async () => {
    await updateCalendarDetails(h.deps, operator, {
      calendarId: ids.room!,
      name: 'Jade Room',
      timeZone: 'Asia/Shanghai',
      price: null,
      description: 'Treatment room for physiotherapy groups',
      tags: ['physiotherapy', 'groups'],
      idempotencyKey: randomUUID(),
    });
    expect((await search('physiotherapy')).calendarsMatched).toBe(3);
    const listed = await listCalendars(h.deps, operator, { limit: 2, query: 'PHYSIOTHERAPY' });
    expect(listed.total).toBe(3);
    expect(listed.calendars.map((c) => c.id)).toEqual([ids.vogel, ids.reed]);
    const rest = await listCalendars(h.deps, operator, {
      limit: 2,
      query: 'PHYSIOTHERAPY',
      cursor: listed.nextCursor!,
    });
    expect(rest.calendars.map((c) => c.id)).toEqual([ids.room]);
    expect(rest.calendars[0]!.tags).toEqual(['physiotherapy', 'groups']);
    expect(rest.nextCursor).toBeNull();
    expect(
      (await listCalendars(h.deps, operator, { limit: 10, query: 'english' })).calendars.map((c) => c.id),
    ).toEqual([ids.reed]);
  });
});

describe('counter-offers switched off for a tenant', () => {
  it('refuses a taken time without naming other times, and names them again when switched back on', async () => {
    const slot = { calendarIds: [ids.vogel!], start: '2030-01-07T08:00:00Z', end: '2030-01-07T09:00:00Z' };
    await holdSlot(h.deps, operator, { ...slot, idempotencyKey: randomUUID() });
    const offered = await refusal(holdSlot(h.deps, operator, { ...slot, idempotencyKey: randomUUID() }));
    expect(offered.code).toBe('SLOT_UNAVAILABLE');
    expect((offered.details.alternatives as unknown[]).length).toBeGreaterThan(0);

    await setTenant(h.deps, operator.tenantId, { offerAlternatives: false });
    const bare = await refusal(holdSlot(h.deps, operator, { ...slot, idempotencyKey: randomUUID() }));
    expect(bare.code).toBe('SLOT_UNAVAILABLE');
    expect(bare.details.alternatives ?? []).toEqual([]);

    await setTenant(h.deps, operator.tenantId, { offerAlternatives: true });
    const again = await refusal(holdSlot(h.deps, operator, { ...slot, idempotencyKey: randomUUID() }));
    expect((again.details.alternatives as unknown[]).length).toBeGreaterThan(0);
  });
});
