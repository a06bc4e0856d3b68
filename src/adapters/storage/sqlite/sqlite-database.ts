import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Migration, MigrationTarget } from '../migration.js';
import { runMigrations } from '../migration.js';
import { sqliteMigrations } from './migrations.js';

export type SqliteDb = Database.Database;

const SYNCHRONOUS_FULL = 2;
const BUSY_TIMEOUT_MS = 5000;

/** Opens a connection with the durability settings Holdfast relies on, and checks they took. */
export function openSqlite(path: string): SqliteDb {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  let db: SqliteDb;
  try {
    db = new Database(path);
  } catch (error) {
    // Name the file: the driver's message ("unable to open database file") does not.
    throw Object.assign(new Error(`${path}: ${(error as Error).message}`), {
      code: (error as { code?: string }).code,
    });
  }
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  switchToWal(db);
  // better-sqlite3 leaves WAL at NORMAL durability; a confirmed booking must survive power loss.
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  // Deleted content is zeroed where it lay: an erased customer's key leaves no bytes behind in the file.
  db.pragma('secure_delete = FAST');
  const synchronous = db.pragma('synchronous', { simple: true });
  if (synchronous !== SYNCHRONOUS_FULL) {
    throw new Error(`SQLite synchronous is ${String(synchronous)}, expected FULL (2)`);
  }
  const journal = db.pragma('journal_mode', { simple: true });
  if (path !== ':memory:' && journal !== 'wal')
    throw new Error(`SQLite journal_mode is ${String(journal)}, expected wal`);
  return db;
}

/**
 * Switching a new file to WAL upgrades a read lock to a write lock, and SQLite answers a
 * write lock held by another process starting at the same moment with "database is locked" at
 * once, without its busy timeout (waiting could deadlock inside one statement). So wait here,
 * as long as the busy timeout would.
 */
function switchToWal(db: SqliteDb): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw error;
      sleepSync(pause);
    }
  }
}

/** Opening a database is synchronous in better-sqlite3, so its wait is too (only at start-up). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Applies pending migrations in order, each in its own transaction; refuses a newer schema. */
export function migrate(
  db: SqliteDb,
  migrations: readonly Migration[] = sqliteMigrations,
): Promise<number[]> {
  return runMigrations(sqliteMigrationTarget(db), migrations);
}

/** Each migration in an immediate transaction: SQLite's write lock is the migration lock. */
function sqliteMigrationTarget(db: SqliteDb): MigrationTarget {
  return {
    appliedVersions: () => {
      db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
      const rows = db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[];
      return Promise.resolve(rows.map((r) => r.version));
    },
    apply: (migration) =>
      Promise.resolve(
        db
          .transaction(() => {
            // Another process may have applied it since we looked: check again under the write lock.
            if (db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(migration.version))
              return false;
            db.exec(migration.sql);
            db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
              migration.version,
              migration.name,
              new Date().toISOString(),
            );
            return true;
          })
          .immediate(),
      ),
  };
}
