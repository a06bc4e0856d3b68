import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call } from '../support/mcp-clients.js';
import type { BackendKind } from '../reliability/harness.js';
import { clientsFor, startBackend } from '../reliability/harness.js';

const NUL = 'a\u0000b';
const SURROGATE = 'bk_\udfff';

/** The calls found to differ between engines when Holdfast was attacked (NUL was INTERNAL on PostgreSQL). */
const calls: [string, Record<string, unknown>][] = [
  ['create_calendar', { name: NUL, timeZone: 'UTC', idempotencyKey: randomUUID() }],
  ['get_booking', { bookingId: NUL }],
  ['get_booking', { bookingId: SURROGATE }],
  ['list_bookings', { calendarId: NUL, limit: 5 }],
  [
    'find_slots',
    {
      calendarIds: [NUL],
      from: '2030-01-07T09:00:00Z',
      to: '2030-01-07T10:00:00Z',
      durationMinutes: 30,
      limit: 1,
    },
  ],
  ['set_availability', { calendarId: NUL, weekly: {}, overrides: [], idempotencyKey: randomUUID() }],
  [
    'hold_slot',
    {
      calendarIds: ['c'],
      start: '2030-01-07T09:00:00Z',
      end: '2030-01-07T10:00:00Z',
      label: NUL,
      idempotencyKey: randomUUID(),
    },
  ],
  [
    'hold_slot',
    {
      calendarIds: ['c'],
      start: '2030-01-07T09:00:00Z',
      end: '2030-01-07T10:00:00Z',
      customer: { name: NUL },
      idempotencyKey: randomUUID(),
    },
  ],
  ['request_approval', { bookingId: SURROGATE, action: 'confirm_booking' }],
];

async function answers(kind: BackendKind) {
  const backend = await startBackend(kind, { instances: 1 });
  try {
    const [client] = await clientsFor(backend, 1);
    const out = [];
    for (const [tool, args] of calls) {
      const envelope = await call(client!, tool, args);
      out.push({ tool, ok: envelope.ok, code: envelope.error?.code, field: envelope.error?.details.field });
    }
    await client!.close();
    return out;
  } finally {
    await backend.stop();
  }
}

describe('hostile strings get the same answer on SQLite and PostgreSQL', () => {
  it('INVALID_ARGUMENTS naming the field, on both engines alike', async () => {
    const sqlite = await answers('sqlite');
    const postgres = await answers('postgres');
    expect(postgres).toEqual(sqlite);
    for (const answer of sqlite) expect(answer.code, answer.tool).toBe('INVALID_ARGUMENTS');
    expect(sqlite.map((a) => a.field)).toEqual([
      'name',
      'bookingId',
      'bookingId',
      'calendarId',
      'calendarIds[0]',
      'calendarId',
      'label',
      'customer.name',
      'bookingId',
    ]);
  });
});
