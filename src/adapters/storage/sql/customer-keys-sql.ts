import { customerKey } from '../../../domain/availability/booking-rules.js';
import type { Booking } from '../../../domain/booking/booking.js';
import type { CustomerKey } from '../customer-vault.js';
import {
  bookingHandle,
  customerHandle,
  ERASED_COLUMN,
  newCustomerKey,
  openCustomer,
  sealCustomer,
  sealedKeyId,
} from '../customer-vault.js';
import type { BookingRow } from '../rows.js';
import { bookingFromRow, bookingToRow } from '../rows.js';
import type { SqlRunner } from './sql-runner.js';

/** Customers' handles begin so (customer-vault.ts); a booking naming nobody has a handle of its own. */
const CUSTOMER_HANDLE = 'c1:';

interface KeyRow {
  key_id: string;
  secret: string;
}

const asKey = (row: KeyRow): CustomerKey => ({
  keyId: row.key_id,
  secret: Buffer.from(row.secret, 'base64url'),
});

/** The customer's key, made in this transaction when they have none (once, however many race). */
async function keyFor(db: SqlRunner, tenantId: string, handle: string, now: number): Promise<CustomerKey> {
  const select = 'SELECT key_id, secret FROM customer_keys WHERE tenant_id = ? AND handle = ?';
  const [found] = await db.all<KeyRow>(select, [tenantId, handle]);
  if (found) return asKey(found);
  const fresh = newCustomerKey();
  // A customer (not a booking that names nobody) gets the tenant's next number, theirs for good.
  const [counted] = handle.startsWith(CUSTOMER_HANDLE)
    ? await db.all<{ customer_numbers: number | string }>(
        'UPDATE tenants SET customer_numbers = customer_numbers + 1 WHERE id = ? RETURNING customer_numbers',
        [tenantId],
      )
    : [];
  const [made] = await db.all<KeyRow>(
    `INSERT INTO customer_keys (tenant_id, handle, key_id, secret, created_at, number) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (tenant_id, handle) DO NOTHING RETURNING key_id, secret`,
    [
      tenantId,
      handle,
      fresh.keyId,
      fresh.secret.toString('base64url'),
      now,
      counted ? Number(counted.customer_numbers) : null,
    ],
  );
  if (made) return asKey(made);
  // Another writer's key won the race (use it), or an erasure removed it meanwhile (use ours: a
  // key that no longer exists seals details nobody can read, which is what erasing asked for).
  const [stored] = await db.all<KeyRow>(select, [tenantId, handle]);
  return stored ? asKey(stored) : fresh;
}

/** The digest a customer's bookings are grouped and counted by (never the address itself). */
export function handleOf(tenantId: string, customer: Booking['customer']): string | null {
  const key = customerKey(customer);
  return key === null ? null : customerHandle(tenantId, key);
}

/**
 * The row as stored: the customer's details sealed with their key, and their handle in place of
 * their address. A booking that names no customer stores none.
 */
export async function storedRow(db: SqlRunner, booking: Booking): Promise<BookingRow> {
  const row = bookingToRow(booking);
  const handle = handleOf(booking.tenantId, booking.customer);
  if (booking.customer === null || Object.keys(booking.customer).length === 0)
    return { ...row, customer: booking.customerErased ? ERASED_COLUMN : row.customer, customer_key: handle };
  const key = await keyFor(db, booking.tenantId, handle ?? bookingHandle(booking.id), booking.updatedAt);
  return { ...row, customer: sealCustomer(booking.customer, key), customer_key: handle };
}

/** Bookings from stored rows, their customers opened with the keys that still exist (one query). */
export async function openedBookings(db: SqlRunner, rows: readonly BookingRow[]): Promise<Booking[]> {
  const ids = [
    ...new Set(rows.map((r) => sealedKeyId(r.customer)).filter((id): id is string => id !== null)),
  ];
  const keys = new Map<string, Buffer>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const found = await db.all<KeyRow>(
      `SELECT key_id, secret FROM customer_keys WHERE key_id IN (${chunk.map(() => '?').join(', ')})`,
      chunk,
    );
    for (const k of found) keys.set(k.key_id, Buffer.from(k.secret, 'base64url'));
  }
  return rows.map((row) => {
    const { customer, erased } = openCustomer(row.customer, keys);
    const booking = bookingFromRow({ ...row, customer: null });
    return { ...booking, customer, ...(erased ? { customerErased: true } : {}) };
  });
}

/**
 * Details an older release stored unsealed (and their copies in the outbox's snapshots) are sealed
 * and given their handle, up to `limit` bookings; returns how many (0: none left).
 */
export async function sealLegacyRows(db: SqlRunner, limit: number): Promise<number> {
  const rows = await db.all<BookingRow>(
    `SELECT * FROM bookings WHERE customer IS NOT NULL AND customer NOT LIKE '{"sealed":%' AND customer <> ? LIMIT ?`,
    [ERASED_COLUMN, limit],
  );
  for (const row of rows) {
    const [booking] = await openedBookings(db, [row]);
    const stored = await storedRow(db, booking!);
    await db.run('UPDATE bookings SET customer = ?, customer_key = ? WHERE tenant_id = ? AND id = ?', [
      stored.customer,
      stored.customer_key,
      row.tenant_id,
      row.id,
    ]);
    const events = await db.all<{ id: string; booking: string }>(
      'SELECT id, booking FROM webhook_events WHERE tenant_id = ? AND booking_id = ?',
      [row.tenant_id, row.id],
    );
    for (const event of events) {
      const snapshot = JSON.parse(event.booking) as BookingRow;
      if (typeof snapshot.customer !== 'string' || snapshot.customer.startsWith('{"sealed":')) continue;
      await db.run('UPDATE webhook_events SET booking = ? WHERE tenant_id = ? AND id = ?', [
        JSON.stringify({ ...snapshot, customer: stored.customer, customer_key: stored.customer_key }),
        row.tenant_id,
        event.id,
      ]);
    }
  }
  return rows.length;
}
