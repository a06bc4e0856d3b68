// The hold use case in-process against the ceiling: a raw better-sqlite3 write transaction that inserts
// the same booking row and allocation with the same durability (WAL, synchronous=FULL, BEGIN IMMEDIATE).
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { jcsDigest } from '../dist/adapters/ids/jcs-digest.js';
import { KeyedDigest } from '../dist/adapters/ids/keyed-digest.js';
import { KeyedPageTokens } from '../dist/adapters/ids/keyed-page-tokens.js';
import { randomIds } from '../dist/adapters/ids/random-ids.js';
import { bookingToRow } from '../dist/adapters/storage/rows.js';
import { openSqlite, migrate } from '../dist/adapters/storage/sqlite/sqlite-database.js';
import { SqliteStore } from '../dist/adapters/storage/sqlite/sqlite-store.js';
import { CalendarCache } from '../dist/app/calendar-cache.js';
import { createCalendar } from '../dist/app/calendars.js';
import { defaultAppConfig } from '../dist/app/deps.js';
import { holdSlot } from '../dist/app/hold-slot.js';
import { noSlotCache } from '../dist/ports/slot-cache.js';
import { pick } from './scale.mjs';

const OPS = pick(3000, 50);
const SLOT = 15 * 60_000;
const principal = {
  tenantId: 'bench',
  subject: 'bench',
  clientId: 'bench',
  scopes: ['bookings:read', 'bookings:write', 'calendars:admin'],
  writePolicy: 'direct',
};

export async function benchInProcess(dir) {
  mkdirSync(dir, { recursive: true });
  const base = Math.ceil(Date.now() / 86_400_000) * 86_400_000 + 86_400_000;
  const allDay = [{ start: '00:00', end: '24:00' }];
  const weekly = Object.fromEntries(
    ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, allDay]),
  );

  const deps = {
    store: SqliteStore.open(join(dir, 'holdfast.db')),
    clock: { now: () => Date.now() },
    ids: randomIds,
    digest: jcsDigest,
    requestDigest: new KeyedDigest(Buffer.from('bench-request-digest-key')),
    pageTokens: new KeyedPageTokens(Buffer.from('bench-page-token-key')),
    payments: {
      queryPayment: async (bookingId) => ({
        bookingId,
        status: 'PENDING',
        amount: null,
        currency: null,
        paidAt: null,
      }),
    },
    slotCache: noSlotCache,
    calendarCache: new CalendarCache(),
    config: defaultAppConfig,
  };
  const calendar = (
    await createCalendar(deps, principal, {
      name: 'c',
      timeZone: 'UTC',
      availability: { weekly, overrides: [] },
      idempotencyKey: randomUUID(),
    })
  ).value;

  const raw = openSqlite(join(dir, 'raw.db'));
  migrate(raw);
  raw
    .prepare("INSERT INTO calendars VALUES ('bench', ?, 'c', 'UTC', NULL, NULL, '{}', 0, 1)")
    .run(calendar.id);
  const insertBooking = raw.prepare(
    `INSERT INTO bookings (tenant_id, id, reference, calendar_ids, start_at, end_at, status, version, created_at, updated_at,
       expires_at, customer, label, price_amount, price_currency, payment, owner_subject, owner_client, external_keys,
       payment_follow_up)
     VALUES (@tenant_id, @id, @reference, @calendar_ids, @start_at, @end_at, @status, @version, @created_at, @updated_at,
       @expires_at, @customer, @label, @price_amount, @price_currency, @payment, @owner_subject, @owner_client, @external_keys,
       @payment_follow_up)`,
  );
  const insertAllocation = raw.prepare('INSERT INTO allocations VALUES (?, ?, ?, ?, ?, 1)');
  const rawHold = (i) => {
    const start = base + i * SLOT;
    const row = bookingToRow({
      id: randomIds.newId('bk'),
      tenantId: 'bench',
      reference: randomIds.newReference(),
      calendarIds: [calendar.id],
      start,
      end: start + SLOT,
      status: 'HELD',
      version: 1,
      createdAt: Date.now(),
      updatedAt: Date.now(),
      expiresAt: Date.now() + 300_000,
      customer: null,
      label: null,
      price: null,
      payment: null,
      owner: { subject: 'bench', clientId: 'bench' },
      externalKeys: {},
      paymentFollowUp: false,
    });
    raw.exec('BEGIN IMMEDIATE');
    insertBooking.run(row);
    insertAllocation.run('bench', row.id, calendar.id, row.start_at, row.end_at);
    raw.exec('COMMIT');
  };

  const time = async (fn) => {
    const t0 = performance.now();
    for (let i = 0; i < OPS; i++) await fn(i);
    return OPS / ((performance.now() - t0) / 1000);
  };
  const holdfastHold = (offset) => (i) =>
    holdSlot(deps, principal, {
      calendarIds: [calendar.id],
      start: new Date(base + (offset + i) * SLOT).toISOString(),
      end: new Date(base + (offset + i) * SLOT + SLOT).toISOString(),
      idempotencyKey: randomUUID(),
    });
  // Interleave two rounds each; keep the best.
  let rawBest = 0;
  let holdfastBest = 0;
  for (let round = 0; round < 2; round++) {
    rawBest = Math.max(rawBest, await time((i) => rawHold(round * OPS + i)));
    holdfastBest = Math.max(holdfastBest, await time(holdfastHold(round * OPS)));
  }
  raw.close();
  await deps.store.close();
  return { raw: rawBest, holdfast: holdfastBest };
}
