import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { bookingToRow } from '../../../src/adapters/storage/rows.js';
import { openSqlite } from '../../../src/adapters/storage/sqlite/sqlite-database.js';
import { SqliteStore } from '../../../src/adapters/storage/sqlite/sqlite-store.js';
import type { Booking } from '../../../src/domain/booking/booking.js';
import type { Store } from '../../../src/ports/store/index.js';
import { tempDbPath } from '../../support/spawn-server.js';
import { inboxStoreContract } from './inbox-store-contract.js';
import { storeContract } from './store-contract.js';

storeContract('SQLite', async () => {
  const db = tempDbPath();
  let store: Store = await SqliteStore.open(db.path);
  return {
    get store() {
      return store;
    },
    async rawInsertBooking(booking: Booking) {
      const raw = new Database(db.path);
      try {
        raw.transaction(() => {
          const row = bookingToRow(booking);
          const columns = Object.keys(row);
          raw
            .prepare(
              `INSERT INTO bookings (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
            )
            .run(row);
          for (const calendarId of booking.calendarIds) {
            raw
              .prepare(
                'INSERT INTO allocations (tenant_id, booking_id, calendar_id, start_at, end_at, active) VALUES (?, ?, ?, ?, ?, 1)',
              )
              .run(booking.tenantId, booking.id, calendarId, booking.start, booking.end);
          }
        })();
      } finally {
        raw.close();
      }
    },
    async reopen() {
      await store.close();
      store = await SqliteStore.open(db.path);
      return store;
    },
    async close() {
      await store.close();
      db.cleanup();
    },
  };
});

inboxStoreContract('SQLite', async () => {
  const db = tempDbPath();
  const store = await SqliteStore.open(db.path);
  return {
    store,
    async rawBody(messageId: string) {
      const raw = new Database(db.path, { readonly: true });
      try {
        const row = raw.prepare('SELECT raw FROM inbox_raw_bodies WHERE message_id = ?').get(messageId) as
          { raw: Buffer } | undefined;
        return row ? new Uint8Array(row.raw) : null;
      } finally {
        raw.close();
      }
    },
    async close() {
      await store.close();
      db.cleanup();
    },
  };
});

describe('SQLite durability settings', () => {
  it('runs WAL with synchronous=FULL and a busy timeout', () => {
    const db = tempDbPath();
    const conn = openSqlite(db.path);
    expect(conn.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(conn.pragma('synchronous', { simple: true })).toBe(2);
    expect(conn.pragma('busy_timeout', { simple: true })).toBe(5000);
    conn.close();
    db.cleanup();
  });

  it('switches a new file to WAL while another process holds its write lock (the switch SQLite does not wait for)', async () => {
    // Another process starting at the same moment is still in rollback mode and writing: SQLite
    // answers the WAL switch with "database is locked" at once, without its busy timeout.
    const db = tempDbPath();
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const db = new (require('better-sqlite3'))(${JSON.stringify(db.path)});
         db.exec('BEGIN IMMEDIATE'); db.exec('CREATE TABLE t (x)');
         process.stdout.write('locked\\n');
         setTimeout(() => { db.exec('COMMIT'); db.close(); }, 400);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise((resolve) => holder.stdout.once('data', resolve));
    const conn = openSqlite(db.path);
    expect(conn.pragma('journal_mode', { simple: true })).toBe('wal');
    conn.close();
    await new Promise((resolve) => holder.once('exit', resolve));
    db.cleanup();
  });

  it('refuses a database from a newer Holdfast', async () => {
    const db = tempDbPath();
    await (await SqliteStore.open(db.path)).close();
    const raw = new Database(db.path);
    raw.prepare("INSERT INTO schema_migrations VALUES (99, 'future', '2099-01-01')").run();
    raw.close();
    await expect(SqliteStore.open(db.path)).rejects.toThrow(/newer than this Holdfast/);
    db.cleanup();
  });
});
