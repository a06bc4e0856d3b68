import type { StoreTx } from '../../../ports/store/index.js';
import { sqlStoreTx } from '../sql/sql-store-tx.js';
import type { SqliteDb } from './sqlite-database.js';
import { mapSqliteError } from './sqlite-errors.js';
import { SqliteRunner, sqliteDialect } from './sqlite-sql.js';
import type { StoreCall, WriterReply, WriterRequest } from './writer-protocol.js';
import { toWire } from './writer-protocol.js';
import { AGGREGATE_NAMES } from '../sql/aggregates.js';

const lost = () => new Error('SQLite abandoned the transaction; nothing in it was kept');

/**
 * The single SQLite writer, with group commit. Writes that arrive while the previous COMMIT is
 * being synced queue up, then run one after another inside one BEGIN IMMEDIATE transaction,
 * each in its own savepoint (a failing write rolls back only itself), and share the next
 * durable COMMIT. A write is answered only after that COMMIT returned, so each is exactly as
 * durable as with a transaction of its own; the fsync is paid once per batch.
 */
export class WriterCore {
  private readonly tx: StoreTx;
  private queue: Promise<void> = Promise.resolve();
  private inTransaction = false;
  private closed = false;
  /** Writes kept in the open transaction, with their answers, to send once it commits. */
  private uncommitted = new Map<number, unknown>();
  /** The multi-call write now running; every other request waits for it to close. */
  private openUnit: number | null = null;
  /** Why the open write can no longer succeed (its BEGIN failed, or the engine dropped the transaction). */
  private unitError: unknown = null;
  private waiting: WriterRequest[] = [];

  constructor(
    private readonly db: SqliteDb,
    private readonly send: (replies: WriterReply[]) => void,
    /** A batch that is already waiting, taken at once so it joins this COMMIT instead of the next. */
    private readonly pull: () => readonly WriterRequest[] | undefined = () => undefined,
  ) {
    this.tx = sqlStoreTx(new SqliteRunner(db), sqliteDialect);
  }

  /**
   * Handles a batch (what the other side sent in one turn) strictly in order, then commits: the
   * writes of the batch, and of any batch that arrived while the previous COMMIT was syncing,
   * share one COMMIT.
   */
  receive(batch: readonly WriterRequest[]): void {
    this.queue = this.queue.then(async () => {
      for (let next: readonly WriterRequest[] | undefined = batch; next; next = this.pull()) {
        for (const request of next) await this.handle(request);
      }
      this.commit();
    });
  }

  private async handle(request: WriterRequest): Promise<void> {
    if (this.closed) {
      if (request.kind !== 'open') this.reply(request.id, new Error('the SQLite writer is closed'));
      return;
    }
    if (this.openUnit !== null && (!('unit' in request) || request.unit !== this.openUnit)) {
      this.waiting.push(request);
      return;
    }
    switch (request.kind) {
      case 'one':
        await this.one(request.id, request.call);
        break;
      case 'open':
        this.open(request.unit);
        break;
      case 'call':
        await this.callInUnit(request.id, request.call);
        break;
      case 'close':
        await this.close(request.id, request.keep);
        break;
      case 'shutdown':
        this.commit();
        this.closed = true;
        this.db.close();
        this.send([{ id: request.id, ok: true, value: null }]);
        return;
    }
  }

  private async one(id: number, call: StoreCall): Promise<void> {
    try {
      this.begin();
      this.db.exec('SAVEPOINT holdfast_write');
    } catch (error) {
      return this.reply(id, mapSqliteError(error));
    }
    try {
      const value = await this.invoke(call);
      this.db.exec('RELEASE holdfast_write');
      this.uncommitted.set(id, value);
    } catch (error) {
      this.undoSavepoint();
      this.reply(id, error);
    }
  }

  private open(unit: number): void {
    this.openUnit = unit;
    this.unitError = null;
    try {
      this.begin();
      this.db.exec('SAVEPOINT holdfast_write');
    } catch (error) {
      this.unitError = mapSqliteError(error);
    }
  }

  private async callInUnit(id: number, call: StoreCall): Promise<void> {
    if (this.unitError !== null) return this.reply(id, this.unitError);
    try {
      this.send([{ id, ok: true, value: await this.invoke(call) }]);
    } catch (error) {
      if (!this.db.inTransaction) this.unitError = lost();
      this.reply(id, error);
    }
  }

  private async close(id: number, keep: boolean): Promise<void> {
    this.openUnit = null;
    if (this.unitError !== null) {
      this.reply(id, this.unitError);
      if (!this.db.inTransaction) this.abandon();
    } else if (keep) {
      this.db.exec('RELEASE holdfast_write');
      this.uncommitted.set(id, null);
    } else {
      this.undoSavepoint();
      this.send([{ id, ok: true, value: null }]);
    }
    const waiting = this.waiting;
    this.waiting = [];
    for (const request of waiting) await this.handle(request);
  }

  private begin(): void {
    if (this.inTransaction) return;
    this.db.exec('BEGIN IMMEDIATE');
    this.inTransaction = true;
  }

  private undoSavepoint(): void {
    if (this.db.inTransaction) this.db.exec('ROLLBACK TO holdfast_write; RELEASE holdfast_write');
    else this.abandon();
  }

  /** The engine rolled the whole transaction back (disk full, I/O error): nothing kept in it survives. */
  private abandon(): void {
    this.inTransaction = false;
    this.failUncommitted(lost());
  }

  private commit(): void {
    if (!this.inTransaction || this.openUnit !== null) return;
    this.inTransaction = false;
    try {
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      return this.failUncommitted(mapSqliteError(error));
    }
    const replies = [...this.uncommitted].map(([id, value]): WriterReply => ({ id, ok: true, value }));
    this.uncommitted.clear();
    if (replies.length > 0) this.send(replies);
  }

  private failUncommitted(error: unknown): void {
    const wire = toWire(error);
    const replies = [...this.uncommitted.keys()].map((id): WriterReply => ({ id, ok: false, error: wire }));
    this.uncommitted.clear();
    if (replies.length > 0) this.send(replies);
  }

  private reply(id: number, error: unknown): void {
    this.send([{ id, ok: false, error: toWire(error) }]);
  }

  private invoke(call: StoreCall): Promise<unknown> {
    if (!(AGGREGATE_NAMES as readonly string[]).includes(call.aggregate))
      throw new Error(`no aggregate ${call.aggregate}`);
    const aggregate = this.tx[call.aggregate] as unknown as Record<string, unknown>;
    const method = aggregate[call.method];
    if (call.method === 'constructor' || typeof method !== 'function')
      throw new Error(`no store method ${call.aggregate}.${call.method}`);
    return (method as (...args: unknown[]) => Promise<unknown>).apply(aggregate, call.args as unknown[]);
  }
}
