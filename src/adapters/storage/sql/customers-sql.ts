import type { Instant } from '../../../domain/time/instant.js';
import type { CustomerStore } from '../../../ports/store/customers.js';
import type { BookingRow } from '../rows.js';
import {
  eraseBookingCustomer,
  eraseCustomer,
  eraseEndedBefore,
  eraseHandle,
} from './customer-erasure-sql.js';
import { openedBookings, sealLegacyRows } from './customer-keys-sql.js';
import type { SqlRunner } from './sql-runner.js';

const MAX_BOOKINGS = 200;

/** Customers read from the bookings that name them (the `customer_key` each booking stores). */
export class CustomersSql implements CustomerStore {
  constructor(private readonly db: SqlRunner) {}

  async customerPage(tenantId: string, afterKey: string | null, limit: number) {
    const rows = await this.db.all<{ customer_key: string; first_id: string }>(
      `SELECT b.customer_key, (SELECT f.id FROM bookings f WHERE f.tenant_id = b.tenant_id AND f.customer_key = b.customer_key
           ORDER BY f.created_at, f.id LIMIT 1) AS first_id
       FROM bookings b WHERE b.tenant_id = ? AND b.customer_key IS NOT NULL AND b.customer_key > ?
       GROUP BY b.tenant_id, b.customer_key ORDER BY b.customer_key LIMIT ?`,
      [tenantId, afterKey ?? '', limit],
    );
    return rows.map((r) => ({ key: r.customer_key, firstBookingId: r.first_id }));
  }

  async customerCount(tenantId: string): Promise<number> {
    const [row] = await this.db.all<{ n: number | string }>(
      'SELECT count(DISTINCT customer_key) AS n FROM bookings WHERE tenant_id = ? AND customer_key IS NOT NULL',
      [tenantId],
    );
    return Number(row?.n ?? 0);
  }

  async firstBookingOf(tenantId: string, key: string): Promise<string | null> {
    const [row] = await this.db.all<{ id: string }>(
      'SELECT id FROM bookings WHERE tenant_id = ? AND customer_key = ? ORDER BY created_at, id LIMIT 1',
      [tenantId, key],
    );
    return row?.id ?? null;
  }

  async numbersOf(tenantId: string, keys: readonly string[]): Promise<Map<string, number>> {
    const numbers = new Map<string, number>();
    for (let i = 0; i < keys.length; i += 500) {
      const chunk = keys.slice(i, i + 500);
      const rows = await this.db.all<{ handle: string; number: number | string }>(
        `SELECT handle, number FROM customer_keys WHERE tenant_id = ? AND number IS NOT NULL
           AND handle IN (${chunk.map(() => '?').join(', ')})`,
        [tenantId, ...chunk],
      );
      for (const row of rows) numbers.set(row.handle, Number(row.number));
    }
    return numbers;
  }

  async keyOfNumber(tenantId: string, number: number): Promise<string | null> {
    const [row] = await this.db.all<{ handle: string }>(
      'SELECT handle FROM customer_keys WHERE tenant_id = ? AND number = ?',
      [tenantId, number],
    );
    return row?.handle ?? null;
  }

  async customerKeyOf(tenantId: string, bookingId: string): Promise<string | null> {
    const [row] = await this.db.all<{ customer_key: string | null }>(
      'SELECT customer_key FROM bookings WHERE tenant_id = ? AND id = ?',
      [tenantId, bookingId],
    );
    return row?.customer_key ?? null;
  }

  async bookingsOfCustomers(tenantId: string, keys: readonly string[]) {
    if (keys.length === 0) return [];
    const rows = await this.db.all<BookingRow>(
      `SELECT * FROM bookings WHERE tenant_id = ? AND customer_key IN (${keys.map(() => '?').join(', ')})
       ORDER BY start_at DESC, id LIMIT ?`,
      [tenantId, ...keys, MAX_BOOKINGS * keys.length],
    );
    const bookings = await openedBookings(this.db, rows);
    return rows.map((row, i) => ({ key: row.customer_key!, booking: bookings[i]! }));
  }

  async erase(tenantId: string, key: string): Promise<number> {
    return eraseCustomer(this.db, tenantId, key);
  }

  async eraseOfBooking(tenantId: string, bookingId: string): Promise<number> {
    const [row] = await this.db.all<{ customer_key: string | null }>(
      'SELECT customer_key FROM bookings WHERE tenant_id = ? AND id = ?',
      [tenantId, bookingId],
    );
    if (!row) return 0;
    return row.customer_key === null
      ? eraseBookingCustomer(this.db, tenantId, bookingId)
      : eraseHandle(this.db, tenantId, row.customer_key);
  }

  async eraseEndedBefore(tenantId: string, endedBefore: Instant, limit: number): Promise<number> {
    return eraseEndedBefore(this.db, tenantId, endedBefore, limit);
  }

  async legacySealed(): Promise<boolean> {
    const [done] = await this.db.all<{ value: string }>(
      "SELECT value FROM installation WHERE key = 'customers_sealed'",
    );
    return done !== undefined;
  }

  async sealLegacy(limit: number): Promise<number> {
    const sealed = await sealLegacyRows(this.db, limit);
    if (sealed === 0)
      await this.db.run(
        "INSERT INTO installation (key, value, updated_at) VALUES ('customers_sealed', '1', 0) ON CONFLICT (key) DO NOTHING",
      );
    return sealed;
  }
}
