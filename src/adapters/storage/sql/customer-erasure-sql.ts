import { bookingHandle, customerHandle, ERASED_COLUMN } from '../customer-vault.js';
import type { BookingRow } from '../rows.js';
import type { SqlRunner } from './sql-runner.js';

const SEALED = `customer LIKE '{"sealed":%'`;

/**
 * Destroys the keys of these customers (their details become unreadable wherever they were
 * copied), and removes their handle from their bookings and from the outbox's snapshots of them,
 * so nothing left links those bookings to one person. Returns how many bookings were theirs.
 */
async function eraseHandles(db: SqlRunner, tenantId: string, handles: readonly string[]): Promise<number> {
  let bookings = 0;
  for (const handle of handles) {
    const ids = (
      await db.all<{ id: string }>('SELECT id FROM bookings WHERE tenant_id = ? AND customer_key = ?', [
        tenantId,
        handle,
      ])
    ).map((r) => r.id);
    if (handle.startsWith('b:')) ids.push(handle.slice(2));
    await db.run('DELETE FROM customer_keys WHERE tenant_id = ? AND handle = ?', [tenantId, handle]);
    // The bookings move to their next version: a change read before the erasure and written after
    // it fails (VERSION_CONFLICT) instead of sealing the details again under a new key.
    await db.run(
      `UPDATE bookings SET customer_key = NULL, customer = ?, version = version + 1
       WHERE tenant_id = ? AND (customer_key = ? OR id = ?)`,
      [ERASED_COLUMN, tenantId, handle, handle.startsWith('b:') ? handle.slice(2) : ''],
    );
    await scrubOutbox(db, tenantId, ids);
    bookings += handle.startsWith('b:') ? 1 : ids.length;
  }
  return bookings;
}

/** The outbox keeps a snapshot of each booking event: its handle goes, plain legacy details too. */
async function scrubOutbox(db: SqlRunner, tenantId: string, bookingIds: readonly string[]): Promise<void> {
  for (let i = 0; i < bookingIds.length; i += 500) {
    const chunk = bookingIds.slice(i, i + 500);
    const events = await db.all<{ id: string; booking: string }>(
      `SELECT id, booking FROM webhook_events WHERE tenant_id = ? AND booking_id IN (${chunk.map(() => '?').join(', ')})`,
      [tenantId, ...chunk],
    );
    for (const event of events) {
      const row = JSON.parse(event.booking) as BookingRow;
      const sealed = typeof row.customer === 'string' && row.customer.startsWith('{"sealed":');
      const scrubbed = {
        ...row,
        customer_key: null,
        customer: sealed || row.customer === null ? row.customer : ERASED_COLUMN,
      };
      await db.run('UPDATE webhook_events SET booking = ? WHERE tenant_id = ? AND id = ?', [
        JSON.stringify(scrubbed),
        tenantId,
        event.id,
      ]);
    }
  }
}

/**
 * Erases one customer, named by the key bookings count them by (`email:…`, `phone:…`): their
 * sealed details everywhere, and details an older release stored unsealed under that key.
 */
export async function eraseCustomer(db: SqlRunner, tenantId: string, key: string): Promise<number> {
  const legacy = await db.all<{ id: string }>(
    'SELECT id FROM bookings WHERE tenant_id = ? AND customer_key = ?',
    [tenantId, key],
  );
  if (legacy.length > 0) {
    await db.run(
      'UPDATE bookings SET customer_key = NULL, customer = ?, version = version + 1 WHERE tenant_id = ? AND customer_key = ?',
      [ERASED_COLUMN, tenantId, key],
    );
    await scrubOutbox(
      db,
      tenantId,
      legacy.map((r) => r.id),
    );
  }
  return legacy.length + (await eraseHandles(db, tenantId, [customerHandle(tenantId, key)]));
}

/** Erases the customer whose handle their bookings store. */
export function eraseHandle(db: SqlRunner, tenantId: string, handle: string): Promise<number> {
  return eraseHandles(db, tenantId, [handle]);
}

/** Erases the details of a booking that names no e-mail or phone: they are sealed with its own key. */
export async function eraseBookingCustomer(
  db: SqlRunner,
  tenantId: string,
  bookingId: string,
): Promise<number> {
  return eraseHandles(db, tenantId, [bookingHandle(bookingId)]);
}

/**
 * Retention: customers none of whose bookings ends after `endedBefore` are erased, up to `limit`
 * of them (the sweeper comes back for the rest). Returns how many customers were erased.
 */
export async function eraseEndedBefore(
  db: SqlRunner,
  tenantId: string,
  endedBefore: number,
  limit: number,
): Promise<number> {
  const customers = await db.all<{ handle: string }>(
    `SELECT k.handle FROM customer_keys k WHERE k.tenant_id = ? AND k.handle LIKE 'c1:%'
       AND NOT EXISTS (SELECT 1 FROM bookings b WHERE b.tenant_id = k.tenant_id AND b.customer_key = k.handle AND b.end_at >= ?)
     LIMIT ?`,
    [tenantId, endedBefore, limit],
  );
  const single = await db.all<{ handle: string }>(
    `SELECT k.handle FROM customer_keys k WHERE k.tenant_id = ? AND k.handle LIKE 'b:%'
       AND NOT EXISTS (SELECT 1 FROM bookings b WHERE b.tenant_id = k.tenant_id AND b.id = substr(k.handle, 3) AND b.end_at >= ?)
     LIMIT ?`,
    [tenantId, endedBefore, limit],
  );
  const legacy = await db.all<{ id: string }>(
    `SELECT id FROM bookings WHERE tenant_id = ? AND end_at < ? AND customer IS NOT NULL AND NOT ${SEALED} AND customer <> ? LIMIT ?`,
    [tenantId, endedBefore, ERASED_COLUMN, limit],
  );
  for (const { id } of legacy) {
    await db.run(
      'UPDATE bookings SET customer_key = NULL, customer = ?, version = version + 1 WHERE tenant_id = ? AND id = ?',
      [ERASED_COLUMN, tenantId, id],
    );
  }
  await scrubOutbox(
    db,
    tenantId,
    legacy.map((r) => r.id),
  );
  await eraseHandles(
    db,
    tenantId,
    [...customers, ...single].map((r) => r.handle),
  );
  return customers.length + single.length + legacy.length;
}
