import { existsSync } from 'node:fs';
import type { Store, StoreTx } from '../../../ports/store.js';
import { DatabaseMissingError } from '../database-missing.js';
import { Mutex } from '../mutex.js';
import type { SqliteDb } from './sqlite-database.js';
import { migrate, openSqlite } from './sqlite-database.js';
import { mapSqliteError } from './sqlite-errors.js';
import { SqliteTx } from './sqlite-tx.js';

interface PendingWrite {
  readonly work: (tx: StoreTx) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown; committed: (() => void)[] } | { ok: false; error: unknown };

const MAX_BATCH = 64;

/**
 * Store on SQLite: one writer connection and, for files, one reader connection
 * that sees committed snapshots while writes are under way.
 *
 * Writes use group commit: the writes that arrive in one event-loop turn run
 * one after another inside a single BEGIN IMMEDIATE transaction, each in its
 * own savepoint (a failing write rolls back only itself), and share one
 * durable COMMIT. No caller hears "done" before that COMMIT returns, so each
 * write is exactly as durable as with its own transaction; the fsync is paid
 * once per batch instead of once per write.
 */
export class SqliteStore implements Store {
  private readonly writerLock = new Mutex();
  private readonly readerLock = new Mutex();
  private readonly reader: SqliteDb;
  private queue: PendingWrite[] = [];
  private flushScheduled = false;

  private constructor(
    readonly writer: SqliteDb,
    reader: SqliteDb | null,
  ) {
    this.reader = reader ?? writer;
  }

  /** Opens (and migrates) the database; with `create: false` a missing file is an error, not a new database. */
  static open(path: string, options: { create?: boolean } = {}): SqliteStore {
    if (options.create === false && path !== ':memory:' && !existsSync(path))
      throw new DatabaseMissingError(path);
    const writer = openSqlite(path);
    migrate(writer);
    const reader = path === ':memory:' ? null : openSqlite(path);
    return new SqliteStore(writer, reader);
  }

  read<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    const lock = this.reader === this.writer ? this.writerLock : this.readerLock;
    return lock.run(() => this.readTransaction(work));
  }

  write<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        // Let every request already read in this turn join the batch.
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    this.flushScheduled = false;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      await this.writerLock.run(() => this.commitBatch(batch));
    }
  }

  private async commitBatch(batch: PendingWrite[]): Promise<void> {
    const db = this.writer;
    try {
      db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      for (const item of batch) item.reject(mapSqliteError(error));
      return;
    }
    const outcomes: Outcome[] = [];
    for (const item of batch) {
      outcomes.push(await this.runInSavepoint(db, item.work));
      if (!db.inTransaction) {
        // The engine abandoned the whole transaction: nothing in this batch was kept.
        const lost = outcomes.at(-1)!;
        for (const item of batch) item.reject(lost.ok ? new Error('transaction lost') : lost.error);
        return;
      }
    }
    try {
      db.exec('COMMIT');
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      for (const item of batch) item.reject(mapSqliteError(error));
      return;
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) {
        for (const callback of outcome.committed) callback();
        item.resolve(outcome.value);
      } else item.reject(outcome.error);
    });
  }

  private async runInSavepoint(db: SqliteDb, work: (tx: StoreTx) => Promise<unknown>): Promise<Outcome> {
    db.exec('SAVEPOINT holdfast_write');
    try {
      const tx = new SqliteTx(db);
      const value = await work(tx);
      db.exec('RELEASE holdfast_write');
      return { ok: true, value, committed: tx.committed };
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK TO holdfast_write; RELEASE holdfast_write');
      return { ok: false, error: mapSqliteError(error) };
    }
  }

  private async readTransaction<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    const db = this.reader;
    db.exec('BEGIN');
    const tx = new SqliteTx(db);
    let value: T;
    try {
      value = await work(tx);
    } catch (error) {
      throw mapSqliteError(error);
    } finally {
      if (db.inTransaction) db.exec('COMMIT');
    }
    for (const callback of tx.committed) callback();
    return value;
  }

  async close(): Promise<void> {
    while (this.queue.length > 0 || this.flushScheduled)
      await new Promise((resolve) => setImmediate(resolve));
    await this.writerLock.run(async () => {
      if (this.reader !== this.writer) this.reader.close();
      this.writer.close();
    });
  }
}
