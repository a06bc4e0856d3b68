import { describe, expect, it } from 'vitest';
import { bookingToRow } from '../../../src/adapters/storage/rows.js';
import { PgStore } from '../../../src/adapters/storage/postgres/pg-store.js';
import type { Booking } from '../../../src/domain/booking/booking.js';
import type { Store } from '../../../src/ports/store/index.js';
import { freshSchema, withClient } from '../../support/postgres.js';
import { inboxStoreContract } from './inbox-store-contract.js';
import { storeContract } from './store-contract.js';

storeContract('PostgreSQL', async () => {
  const schema = freshSchema();
  let store: Store = await PgStore.open(schema.url);
  return {
    get store() {
      return store;
    },
    async rawInsertBooking(booking: Booking) {
      await withClient(schema.name, async (client) => {
        const row = bookingToRow(booking);
        const columns = Object.keys(row);
        await client.query('BEGIN');
        try {
          await client.query(
            `INSERT INTO bookings (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
            Object.values(row),
          );
          for (const calendarId of booking.calendarIds) {
            await client.query('INSERT INTO allocations VALUES ($1, $2, $3, $4, $5, true)', [
              booking.tenantId,
              booking.id,
              calendarId,
              booking.start,
              booking.end,
            ]);
          }
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
      });
    },
    async reopen() {
      await store.close();
      store = await PgStore.open(schema.url);
      return store;
    },
    async close() {
      await store.close();
      await schema.drop();
    },
  };
});

inboxStoreContract('PostgreSQL', async () => {
  const schema = freshSchema();
  const store = await PgStore.open(schema.url);
  return {
    store,
    rawBody: (messageId: string) =>
      withClient(schema.name, async (client) => {
        const { rows } = await client.query<{ raw: Buffer }>(
          'SELECT raw FROM inbox_raw_bodies WHERE message_id = $1',
          [messageId],
        );
        return rows[0] ? new Uint8Array(rows[0].raw) : null;
      }),
    async close() {
      await store.close();
      await schema.drop();
    },
  };
});

describe('PostgreSQL setup', () => {
  it('keeps synchronous_commit on, uses the exclusion constraint, refuses a newer schema', async () => {
    const schema = freshSchema();
    const store = await PgStore.open(schema.url);
    await withClient(schema.name, async (client) => {
      const constraint = await client.query(
        "SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'allocations_no_overlap' AND connamespace = $1::regnamespace",
        [schema.name],
      );
      expect(constraint.rows).toHaveLength(1);
      expect(constraint.rows[0].def).toMatch(
        /EXCLUDE USING gist .*int8range\(start_at, end_at, '\[\)'::text\) WITH &&\) WHERE \(active\)/,
      );
      await client.query("INSERT INTO schema_migrations VALUES (99, 'future', now())");
    });
    await store.close();
    await expect(PgStore.open(schema.url)).rejects.toThrow(/newer than this Holdfast/);
    await schema.drop();
  });
});
