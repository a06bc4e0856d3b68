import { randomUUID } from 'node:crypto';
import ical from 'node-ical';
import type { VEvent } from 'node-ical';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedUid } from '../../../src/adapters/feeds/index.js';
import { createFeedLink, revokeFeedLink } from '../../../src/app/feeds/feed-links.js';
import { feedsServer } from '../../support/feeds-harness.js';
import { ok } from '../../support/mcp-clients.js';

// The published .ics of a calendar read back with node-ical: exactly its confirmed bookings and
// live holds, with stable UIDs and exact instants, and nothing of the customer.

const NOW = Date.parse('2030-03-01T00:00:00Z');
const CUSTOMER = { name: 'Ana Quintero', email: 'ana.quintero@private.example', phone: '+1 555 0100' };
let h: Awaited<ReturnType<typeof feedsServer>>;
let calendarId: string;
const booked: Record<string, { id: string; reference: string; version: number; start: string; end: string }> =
  {};

async function hold(name: string, start: string, end: string, label?: string) {
  const data = await ok<{ booking: { id: string; reference: string; version: number } }>(
    h.client,
    'hold_slot',
    {
      calendarIds: [calendarId],
      start,
      end,
      customer: CUSTOMER,
      ...(label ? { label } : {}),
      idempotencyKey: randomUUID(),
    },
  );
  booked[name] = { ...data.booking, start, end };
  return data.booking;
}

function eventsOf(text: string): VEvent[] {
  return Object.values(ical.sync.parseICS(text)).filter((c): c is VEvent => c?.type === 'VEVENT');
}

beforeAll(async () => {
  h = await feedsServer(NOW);
  calendarId = await h.calendar('Room 1', 'Europe/Berlin');
  const confirmed = await hold('confirmed', '2030-03-04T09:00:00Z', '2030-03-04T10:00:00Z', 'Consultation');
  await ok(h.client, 'confirm_booking', {
    bookingId: confirmed.id,
    expectedVersion: confirmed.version,
    idempotencyKey: randomUUID(),
  });
  await hold('held', '2030-03-05T09:30:00Z', '2030-03-05T11:00:00Z');
  const released = await hold('released', '2030-03-06T09:00:00Z', '2030-03-06T10:00:00Z');
  await ok(h.client, 'release_hold', {
    bookingId: released.id,
    expectedVersion: released.version,
    idempotencyKey: randomUUID(),
  });
});
afterAll(async () => h?.close());

describe('the exported calendar feed', () => {
  it('parses back to exactly the confirmed bookings and live holds, without customer details', async () => {
    const { secret } = await createFeedLink(h.deps, h.tenantId, calendarId);
    const response = await h.get(`/feeds/${secret}.ics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(response.headers.get('cache-control')).toMatch(/^private/);
    const text = await response.text();
    const got = eventsOf(text)
      .map((e) => ({
        uid: e.uid,
        start: e.start.getTime(),
        end: e.end!.getTime(),
        status: e.status,
        summary: e.summary,
      }))
      .sort((a, b) => a.start - b.start);
    expect(got).toEqual([
      {
        uid: feedUid(h.tenantId, booked.confirmed!.id),
        start: Date.parse(booked.confirmed!.start),
        end: Date.parse(booked.confirmed!.end),
        status: 'CONFIRMED',
        summary: 'Consultation',
      },
      {
        uid: feedUid(h.tenantId, booked.held!.id),
        start: Date.parse(booked.held!.start),
        end: Date.parse(booked.held!.end),
        status: 'TENTATIVE',
        summary: booked.held!.reference,
      },
    ]);
    for (const secretThing of [CUSTOMER.email, CUSTOMER.phone, CUSTOMER.name, 'Quintero', booked.held!.id])
      expect(text).not.toContain(secretThing);
    expect(text).toMatch(/DTSTAMP:\d{8}T\d{6}Z/);
    expect(text).toMatch(/DTSTART:20300304T090000Z/);
  });

  it('keeps UIDs stable and drops a hold once it lapses', async () => {
    const { secret } = await createFeedLink(h.deps, h.tenantId, calendarId);
    const before = eventsOf(await (await h.get(`/feeds/${secret}.ics`)).text()).map((e) => e.uid);
    h.clock.advance(6 * 60_000); // past the 5-minute hold
    const after = eventsOf(await (await h.get(`/feeds/${secret}.ics`)).text()).map((e) => e.uid);
    expect(after).toEqual([feedUid(h.tenantId, booked.confirmed!.id)]);
    expect(before).toContain(after[0]);
  });

  it('answers a revoked secret exactly like an unknown one: 404', async () => {
    const { link, secret } = await createFeedLink(h.deps, h.tenantId, calendarId);
    expect((await h.get(`/feeds/${secret}.ics`)).status).toBe(200);
    await revokeFeedLink(h.deps, h.tenantId, link.id);
    const revoked = await h.get(`/feeds/${secret}.ics`);
    const unknown = await h.get(`/feeds/hf_feed_${'A'.repeat(43)}.ics`);
    const malformed = await h.get('/feeds/nonsense.ics');
    const noSuffix = await h.get(`/feeds/${secret}`);
    for (const r of [revoked, unknown, malformed, noSuffix]) expect(r.status).toBe(404);
    expect(await revoked.text()).toBe(await unknown.text());
  });
});
