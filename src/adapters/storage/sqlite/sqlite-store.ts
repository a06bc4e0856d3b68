import { existsSync } from 'node:fs';
import type { Store, StoreTx } from '../../../ports/store/index.js';
import { DatabaseMissingError } from '../database-missing.js';
import { Mutex } from '../mutex.js';
import { singleCall } from '../sql/single-call.js';
import { sqlStoreTx } from '../sql/sql-store-tx.js';
import type { SqliteDb } from './sqlite-database.js';
import { migrate, openSqlite } from './sqlite-database.js';
import { mapSqliteError } from './sqlite-errors.js';
import { SqliteRunner, sqliteDialect } from './sqlite-sql.js';
import type { WriterPlacement } from './writer-client.js';
import { callingAggregates, WriterClient } from './writer-client.js';
import type { StoreCall } from './writer-protocol.js';
import { AGGREGATE_NAMES, methodsOf } from '../sql/aggregates.js';

export interface SqliteStoreOptions {
  /** false: a missing file is an error, not a new database (operator commands). */
  readonly create?: boolean;
  /** Where writes run; `inline` exists to measure what the writer thread buys. */
  readonly writer?: WriterPlacement;
}

const remoteAggregates = (send: (call: StoreCall) => Promise<unknown>) =>
  callingAggregates(send, AGGREGATE_NAMES, methodsOf) as unknown as Omit<
    StoreTx,
    'afterCommit' | 'serialize'
  >;

const transactionHooks = (committed: (() => void)[]): Pick<StoreTx, 'afterCommit' | 'serialize'> => ({
  afterCommit: (callback) => committed.push(callback),
  // The single writer already serialises every write.
  serialize: () => Promise.resolve(),
});

/**
 * Store on a SQLite file. Reads run here, on a connection of their own that sees committed
 * snapshots (WAL). Writes run on the writer (a thread of its own by default, see WriterCore):
 * the use case stays here and each of its store calls travels to the writer, so this thread
 * keeps handling requests while the writer's COMMIT waits for the disk.
 */
export class SqliteStore implements Store {
  private readonly readerLock = new Mutex();
  private readonly readerSql: SqliteRunner;
  private nextUnit = 1;

  private constructor(
    private readonly reader: SqliteDb,
    private readonly writer: WriterClient,
  ) {
    this.readerSql = new SqliteRunner(reader);
  }

  /** Opens (and migrates) the database file. */
  static async open(path: string, options: SqliteStoreOptions = {}): Promise<SqliteStore> {
    if (path === ':memory:')
      throw new Error(
        'The SQLite store needs a file: its writer and its readers use connections of their own.',
      );
    if (options.create === false && !existsSync(path)) throw new DatabaseMissingError(path);
    const reader = openSqlite(path);
    try {
      await migrate(reader);
    } catch (error) {
      reader.close();
      throw error;
    }
    return new SqliteStore(reader, new WriterClient(path, options.writer ?? 'thread'));
  }

  read<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    return this.readerLock.run(async () => {
      const tx = sqlStoreTx(this.readerSql, sqliteDialect);
      this.reader.exec('BEGIN');
      let value: T;
      try {
        value = await work(tx);
      } catch (error) {
        throw mapSqliteError(error);
      } finally {
        if (this.reader.inTransaction) this.reader.exec('COMMIT');
      }
      for (const callback of tx.committed) callback();
      return value;
    });
  }

  async write<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    const unit = this.nextUnit++;
    this.writer.notify({ kind: 'open', unit });
    const tx = this.remoteTx((call) => this.writer.request((id) => ({ kind: 'call', unit, id, call })));
    let value: T;
    try {
      value = await work(tx);
    } catch (error) {
      this.writer.request((id) => ({ kind: 'close', unit, id, keep: false })).catch(() => undefined);
      throw error;
    }
    await this.writer.request((id) => ({ kind: 'close', unit, id, keep: true }));
    for (const callback of tx.committed) callback();
    return value;
  }

  /** One message to the writer, answered once its batch committed. */
  /** The reader connection already answers without a round trip. */
  readOne<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    return this.read(work);
  }

  async writeOne<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    const committed: (() => void)[] = [];
    const value = await work(singleCall({ ...this.oneCallAggregates, ...transactionHooks(committed) }));
    for (const callback of committed) callback();
    return value;
  }

  /** Stateless, so built once: each call becomes a `one` request. */
  private readonly oneCallAggregates = remoteAggregates((call) =>
    this.writer.request((id) => ({ kind: 'one', id, call })),
  );

  private remoteTx(send: (call: StoreCall) => Promise<unknown>): StoreTx & { committed: (() => void)[] } {
    const committed: (() => void)[] = [];
    return { ...remoteAggregates(send), ...transactionHooks(committed), committed };
  }

  async close(): Promise<void> {
    await this.writer.stop();
    await this.readerLock.run(async () => this.reader.close());
  }
}
