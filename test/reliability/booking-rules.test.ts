import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ok } from '../support/mcp-clients.js';
import { createOpenCalendar } from '../support/fixtures.js';
import type { Backend, BackendKind } from './harness.js';
import { clientsFor, startBackend } from './harness.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Midnight UTC a few days ahead: every calendar here keeps UTC hours. */
const day = (ahead: number) => Math.floor(Date.now() / DAY) * DAY + ahead * DAY;
const iso = (t: number) => new Date(t).toISOString();
const hold = (client: Client, calendarId: string, start: number, end: number, extra: object = {}) =>
  call(client, 'hold_slot', {
    calendarIds: [calendarId],
    start: iso(start),
    end: iso(end),
    idempotencyKey: randomUUID(),
    ...extra,
  });

describe.each(['sqlite', 'postgres'] as BackendKind[])('booking rules on %s', (kind) => {
  let backend: Backend;
  let clients: Client[];
  let admin: Client;

  const calendarWith = async (rules: Record<string, unknown>) => {
    const id = await createOpenCalendar(admin, `Ruled ${randomUUID().slice(0, 8)}`);
    await ok(admin, 'set_booking_rules', { calendarId: id, ...rules, idempotencyKey: randomUUID() });
    return id;
  };

  beforeAll(async () => {
    backend = await startBackend(kind);
    clients = await clientsFor(backend, 16);
    admin = clients[0]!;
  }, 60_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await backend.stop();
  });

  it('refuses malformed rules naming the field, and changes nothing', async () => {
    const id = await calendarWith({ bufferAfterMinutes: 15 });
    const cases: [Record<string, unknown>, string][] = [
      [{ slotStepMinutes: 7 }, 'slotStepMinutes'],
      [{ bufferBeforeMinutes: -5 }, 'bufferBeforeMinutes'],
      [{ maximumHorizonDays: 0 }, 'maximumHorizonDays'],
      [{ allowedDurationsMinutes: [30, 30] }, 'allowedDurationsMinutes'],
      [{ allowedDurationsMinutes: [] }, 'allowedDurationsMinutes'],
      [{ maxBookingsPerDay: 1.5 }, 'maxBookingsPerDay'],
      [{ minimumNoticeMinutes: '60' }, 'minimumNoticeMinutes'],
      [{ bufferMinutes: 10 }, 'bufferMinutes'],
    ];
    for (const [rules, field] of cases) {
      const answer = await call(admin, 'set_booking_rules', {
        calendarId: id,
        ...rules,
        idempotencyKey: randomUUID(),
      });
      expect(answer.error?.code, JSON.stringify(rules)).toBe('INVALID_ARGUMENTS');
      expect(String(answer.error?.details?.field), JSON.stringify(rules)).toContain(field);
    }
    const { calendars } = await ok(admin, 'list_calendars', { limit: 100 });
    const calendar = (calendars as { id: string; rules: unknown }[]).find((c) => c.id === id)!;
    expect(calendar.rules).toMatchObject({
      bufferAfterMinutes: 15,
      slotStepMinutes: null,
      maximumHorizonDays: 365,
    });
  });

  it('refuses a hold in year 9999 by the default horizon, naming the rule', async () => {
    const id = await createOpenCalendar(admin, 'Default rules');
    const far = Date.parse('9999-06-01T10:00:00Z');
    const answer = await hold(admin, id, far, far + HOUR);
    expect(answer.error?.code).toBe('OUTSIDE_BOOKING_RULES');
    expect(answer.error?.details).toMatchObject({
      calendarId: id,
      rule: 'maximumHorizon',
      maximumHorizonDays: 365,
    });
  });

  it('applies notice, grid and lengths alike to find_slots and hold_slot', async () => {
    const id = await calendarWith({
      minimumNoticeMinutes: 3 * 24 * 60,
      slotStepMinutes: 30,
      allowedDurationsMinutes: [30, 60],
    });
    const soon = day(2) + 10 * HOUR;
    const early = await hold(admin, id, soon, soon + HOUR);
    expect(early.error?.details).toMatchObject({ rule: 'minimumNotice' });
    const alternatives = early.error?.details?.alternatives as { start: string }[];
    expect(alternatives.length).toBeGreaterThan(0);
    for (const a of alternatives)
      expect(Date.parse(a.start)).toBeGreaterThanOrEqual(Date.now() + 3 * DAY - 60_000);
    const later = day(5) + 10 * HOUR;
    expect((await hold(admin, id, later + 15 * 60_000, later + 75 * 60_000)).error?.details).toMatchObject({
      rule: 'slotStep',
    });
    expect((await hold(admin, id, later, later + 45 * 60_000)).error?.details).toMatchObject({
      rule: 'allowedDurations',
    });
    const search = await call(admin, 'find_slots', {
      calendarIds: [id],
      from: iso(day(1)),
      to: iso(day(6)),
      durationMinutes: 45,
      limit: 10,
    });
    expect(search.error?.code).toBe('OUTSIDE_BOOKING_RULES');
    const found = await ok(admin, 'find_slots', {
      calendarIds: [id],
      from: iso(day(1)),
      to: iso(day(6)),
      durationMinutes: 60,
      stepMinutes: 15,
      limit: 100,
    });
    const starts = (found.slots as { start: string }[]).map((s) => Date.parse(s.start));
    expect(starts.length).toBeGreaterThan(0);
    expect(starts.every((s) => s >= Date.now() + 3 * DAY - 60_000 && s % (30 * 60_000) === 0)).toBe(true);
    expect((await hold(admin, id, starts[0]!, starts[0]! + HOUR)).ok).toBe(true);
  });

  it('keeps buffers between bookings, and racing neighbours cannot squeeze into them', async () => {
    const id = await calendarWith({ bufferBeforeMinutes: 15, bufferAfterMinutes: 30 });
    const ten = day(4) + 10 * HOUR;
    expect((await hold(admin, id, ten, ten + HOUR)).ok).toBe(true);
    const tooClose = await hold(admin, id, ten + HOUR + 30 * 60_000, ten + 2 * HOUR);
    expect(tooClose.error?.code).toBe('SLOT_UNAVAILABLE');
    expect((await hold(admin, id, ten + HOUR + 45 * 60_000, ten + 2 * HOUR + 45 * 60_000)).ok).toBe(true);
    const found = await ok(admin, 'find_slots', {
      calendarIds: [id],
      from: iso(ten - 2 * HOUR),
      to: iso(ten + 4 * HOUR),
      durationMinutes: 30,
      limit: 100,
    });
    const offered = (found.slots as { start: string; end: string }[]).map((s) => [
      Date.parse(s.start),
      Date.parse(s.end),
    ]);
    // Nothing offered may come within the buffers of the two bookings (10:00-11:00 and 11:45-12:45).
    for (const [s, e] of offered) {
      expect(
        e! + 30 * 60_000 <= ten - 15 * 60_000 ||
          s! >= ten + 2 * HOUR + 45 * 60_000 + 30 * 60_000 + 15 * 60_000,
      ).toBe(true);
    }
    // Sixteen agents race for two neighbouring hours whose buffers overlap: exactly one wins.
    const noon = day(6) + 12 * HOUR;
    const answers = await Promise.all(
      clients.map((client, i) => hold(client, id, noon + (i % 2) * HOUR, noon + (i % 2) * HOUR + HOUR)),
    );
    expect(answers.filter((a) => a.ok)).toHaveLength(1);
    expect(answers.filter((a) => !a.ok).every((a) => a.error?.code === 'SLOT_UNAVAILABLE')).toBe(true);
    expect(await backend.overlaps()).toBe(0);
  });

  it('counts per-day limits under racing holds: sixteen agents, limit two, two win', async () => {
    const id = await calendarWith({ maxBookingsPerDay: 2 });
    const base = day(8);
    const answers = await Promise.all(
      clients.map((client, i) => hold(client, id, base + i * HOUR, base + i * HOUR + HOUR)),
    );
    expect(answers.filter((a) => a.ok)).toHaveLength(2);
    const refused = answers.filter((a) => !a.ok);
    expect(refused.every((a) => a.error?.code === 'OUTSIDE_BOOKING_RULES')).toBe(true);
    expect(refused[0]!.error?.details).toMatchObject({
      rule: 'maxBookingsPerDay',
      maxBookingsPerDay: 2,
      calendarId: id,
    });
    // The next day is free again, and find_slots offers nothing more on the full one.
    expect((await hold(admin, id, base + DAY + HOUR, base + DAY + 2 * HOUR)).ok).toBe(true);
    const full = await ok(admin, 'find_slots', {
      calendarIds: [id],
      from: iso(base),
      to: iso(base + DAY),
      durationMinutes: 60,
      limit: 10,
    });
    expect(full.slots).toEqual([]);
  });

  it('counts per-customer limits by e-mail address in any case', async () => {
    const id = await calendarWith({ maxBookingsPerCustomerPerDay: 1 });
    const base = day(9);
    const first = await hold(admin, id, base + HOUR, base + 2 * HOUR, {
      customer: { email: 'Ann@Example.com' },
    });
    expect(first.ok).toBe(true);
    const again = await hold(admin, id, base + 3 * HOUR, base + 4 * HOUR, {
      customer: { email: 'ANN@example.com' },
    });
    expect(again.error?.details).toMatchObject({ rule: 'maxBookingsPerCustomerPerDay' });
    const other = await hold(admin, id, base + 3 * HOUR, base + 4 * HOUR, {
      customer: { email: 'bo@example.com' },
    });
    expect(other.ok).toBe(true);
  });
});
