import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { futureHour, openAllWeek } from '../support/fixtures.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer } from '../support/spawn-server.js';

// An agent that knows the need ("a physiotherapist"), not the calendar: the official client
// against the spawned server, the demo calendars seeded with their descriptions and tags.
let server: RunningServer;
let client: Client;
beforeAll(async () => {
  server = await spawnServer([]);
  client = await connectHttp(server.url, 'modern');
});
afterAll(async () => {
  await client.close();
  await server.stop();
});

const textOf = async (name: string, args: Record<string, unknown>) => {
  const result = await client.callTool({ name, arguments: args });
  return (result.content as { type: string; text: string }[])[0]!.text;
};

describe('finding a calendar by need', () => {
  it('find_slots with a query answers free times on the matching calendar, and one of them can be held', async () => {
    const search = {
      query: 'physiotherapy',
      from: futureHour(1),
      to: futureHour(8),
      durationMinutes: 60,
      limit: 5,
    };
    const found = await ok<{
      slots: { start: string; end: string; calendarId: string }[];
      calendars: { id: string; name: string }[];
      calendarsMatched: number;
    }>(client, 'find_slots', search);
    expect(found.calendarsMatched).toBe(1);
    expect(found.calendars.map((c) => c.name)).toEqual(['Dr. Lena Vogel (physiotherapist)']);
    expect(found.slots.length).toBeGreaterThan(0);
    expect(new Set(found.slots.map((s) => s.calendarId))).toEqual(new Set([found.calendars[0]!.id]));
    // What a model reads names the calendar above its times.
    const text = await textOf('find_slots', search);
    expect(text).toContain(`calendar ${found.calendars[0]!.id} "Dr. Lena Vogel (physiotherapist)":`);
    expect(text).toMatch(/on 1 of 1 matching calendars/);

    const slot = found.slots[0]!;
    const held = await ok<{ booking: { status: string; calendarIds: string[] } }>(client, 'hold_slot', {
      calendarIds: [slot.calendarId],
      start: slot.start,
      end: slot.end,
      idempotencyKey: randomUUID(),
    });
    expect(held.booking.status).toBe('HELD');
    // The held time is gone from the next search by the same words.
    const after = await ok<{ slots: { start: string }[] }>(client, 'find_slots', search);
    expect(after.slots.map((s) => s.start)).not.toContain(slot.start);
  });

  it('list_calendars keeps the calendars whose words match; words no calendar has find none', async () => {
    const rooms = await ok<{ calendars: { name: string; tags: string[] }[]; total: number }>(
      client,
      'list_calendars',
      { query: 'Projector' },
    );
    expect(rooms.calendars.map((c) => c.name)).toEqual(['Jade Room (meeting room)']);
    expect(rooms.calendars[0]!.tags).toContain('projector');
    const none = await ok<{ calendars: unknown[]; total: number }>(client, 'list_calendars', {
      query: 'dentist',
    });
    expect(none).toMatchObject({ calendars: [], total: 0 });
  });

  it('a calendar created with a description and tags is found by them', async () => {
    await ok(client, 'create_calendar', {
      name: 'Dr. Ana Sousa',
      timeZone: 'Europe/Lisbon',
      availability: openAllWeek,
      description: 'Dermatología y alergias',
      tags: ['dermatology', 'Portuguese'],
      idempotencyKey: randomUUID(),
    });
    const found = await ok<{ calendars: { name: string }[] }>(client, 'find_slots', {
      query: 'dermatologia portuguese',
      from: futureHour(1),
      to: futureHour(3),
      durationMinutes: 30,
      limit: 2,
    });
    expect(found.calendars.map((c) => c.name)).toEqual(['Dr. Ana Sousa']);
  });

  it('refuses ids and words together, and neither, naming the field', async () => {
    const range = { from: futureHour(1), to: futureHour(3), durationMinutes: 30, limit: 2 };
    const both = await call(client, 'find_slots', { ...range, query: 'physio', calendarIds: ['cal_x'] });
    expect(both.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'query' } });
    const neither = await call(client, 'find_slots', range);
    expect(neither.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'calendarIds' } });
    const blank = await call(client, 'find_slots', { ...range, query: ' , ' });
    expect(blank.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'query' } });
  });
});

describe('the cache field of a slot search', () => {
  it('find_slots says MISS when it searched; check_availability reads the bookings as they are: BYPASS', async () => {
    const [calendar] = (
      await ok<{ calendars: { id: string }[] }>(client, 'list_calendars', { query: 'consulting' })
    ).calendars;
    const date = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(
      Date.now() + 2 * 86_400_000,
    );
    const checked = await call(client, 'check_availability', {
      calendarIds: [calendar!.id],
      date,
      times: ['10:00'],
    });
    expect(checked.ok).toBe(true);
    expect(checked.meta.cache).toBe('BYPASS');
    const search = {
      calendarIds: [calendar!.id],
      from: futureHour(1),
      to: futureHour(30),
      durationMinutes: 30,
      limit: 1,
    };
    expect((await call(client, 'find_slots', search)).meta.cache).toBe('MISS');
  });
});

describe('counter-offers switched off for the tenant', () => {
  it('holdfast tenants set --counter-offers off: a taken time is refused without other times', async () => {
    const [calendar] = (
      await ok<{ calendars: { id: string }[] }>(client, 'list_calendars', { query: 'consulting' })
    ).calendars;
    const found = await ok<{ slots: { start: string; end: string }[] }>(client, 'find_slots', {
      calendarIds: [calendar!.id],
      from: futureHour(1),
      to: futureHour(9),
      durationMinutes: 30,
      limit: 1,
    });
    const slot = { calendarIds: [calendar!.id], start: found.slots[0]!.start, end: found.slots[0]!.end };
    await ok(client, 'hold_slot', { ...slot, idempotencyKey: randomUUID() });
    const offered = await call(client, 'hold_slot', { ...slot, idempotencyKey: randomUUID() });
    expect(offered.error!.code).toBe('SLOT_UNAVAILABLE');
    expect((offered.error!.details.alternatives as unknown[]).length).toBeGreaterThan(0);

    const off = await runCli(['tenants', 'set', 'local', '--counter-offers', 'off', '--db', server.dbPath]);
    expect(off.status, off.stderr).toBe(0);
    expect(off.stdout).toContain('counter-offers off');
    const bare = await call(client, 'hold_slot', { ...slot, idempotencyKey: randomUUID() });
    expect(bare.error!.code).toBe('SLOT_UNAVAILABLE');
    expect(bare.error!.details.alternatives ?? []).toEqual([]);
    // Its recovery does not point at alternatives it does not carry.
    expect(bare.error!.recovery.action).not.toContain('details.alternatives');
    expect(bare.error!.recovery.action).toContain('find_slots');
    expect(offered.error!.recovery.action).toContain('details.alternatives');

    const wrong = await runCli([
      'tenants',
      'set',
      'local',
      '--counter-offers',
      'maybe',
      '--db',
      server.dbPath,
    ]);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('--counter-offers must be on or off');
    const on = await runCli(['tenants', 'set', 'local', '--counter-offers', 'on', '--db', server.dbPath]);
    expect(on.stdout).toContain('counter-offers on');
  });
});
