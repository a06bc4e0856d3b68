import type { Store, StoreTx } from '../../../ports/store.js';
import { Mutex } from '../mutex.js';
import type { SqliteDb } from './sqlite-database.js';
import { migrate, openSqlite } from './sqlite-database.js';
import { mapSqliteError } from './sqlite-errors.js';
import { SqliteTx } from './sqlite-tx.js';

/**
 * Store on SQLite: one writer connection (BEGIN IMMEDIATE) and, for files, one
 * reader connection that sees committed snapshots while a write is under way.
 */
export class SqliteStore implements Store {
  private readonly writerLock = new Mutex();
  private readonly readerLock = new Mutex();
  private readonly reader: SqliteDb;

  private constructor(
    readonly writer: SqliteDb,
    reader: SqliteDb | null,
  ) {
    this.reader = reader ?? writer;
  }

  static open(path: string): SqliteStore {
    const writer = openSqlite(path);
    migrate(writer);
    const reader = path === ':memory:' ? null : openSqlite(path);
    return new SqliteStore(writer, reader);
  }

  read<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    const lock = this.reader === this.writer ? this.writerLock : this.readerLock;
    return lock.run(() => this.run(this.reader, 'BEGIN', work));
  }

  write<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    return this.writerLock.run(() => this.run(this.writer, 'BEGIN IMMEDIATE', work));
  }

  private async run<T>(db: SqliteDb, begin: string, work: (tx: StoreTx) => Promise<T>): Promise<T> {
    try {
      db.exec(begin);
    } catch (error) {
      throw mapSqliteError(error);
    }
    try {
      const result = await work(new SqliteTx(db));
      db.exec('COMMIT');
      return result;
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw mapSqliteError(error);
    }
  }

  async close(): Promise<void> {
    await this.writerLock.run(async () => {
      if (this.reader !== this.writer) this.reader.close();
      this.writer.close();
    });
  }
}
