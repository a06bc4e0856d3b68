import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { packageFile } from '../../files/package-files.js';
import type { AggregateName } from '../../../ports/store/index.js';
import type { StoreCall, WriterFailure, WriterReply, WriterRequest } from './writer-protocol.js';
import { fromWire } from './writer-protocol.js';
import { openSqlite } from './sqlite-database.js';
import { WriterCore } from './writer-core.js';

/** Where the writer runs: its own thread (the default: the fsync overlaps request handling) or this one. */
export type WriterPlacement = 'thread' | 'inline';

interface Waiting {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

type Transport = { post(request: WriterRequest): void; hold(busy: boolean): void; stop(): Promise<void> };

/** The use cases' side of the SQLite writer: numbered requests out, answers matched back. */
export class WriterClient {
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();
  private failure: Error | null = null;
  private readonly transport: Transport;

  constructor(path: string, placement: WriterPlacement) {
    this.transport = placement === 'thread' ? this.threadTransport(path) : this.inlineTransport(path);
  }

  /** Sends a request and resolves with its answer (for kept writes: once they committed). */
  request(make: (id: number) => WriterRequest): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      if (this.waiting.size === 1) this.transport.hold(true);
      this.transport.post(make(id));
    });
  }

  /** Sends a request whose answer nobody waits for. */
  notify(request: WriterRequest): void {
    if (!this.failure) this.transport.post(request);
  }

  newId(): number {
    return this.nextId++;
  }

  async stop(): Promise<void> {
    if (!this.failure) await this.request((id) => ({ kind: 'shutdown', id }));
    await this.transport.stop();
  }

  private answer(replies: readonly WriterReply[]): void {
    for (const reply of replies) {
      const waiting = this.waiting.get(reply.id);
      if (!waiting) continue;
      this.waiting.delete(reply.id);
      if (reply.ok) waiting.resolve(reply.value);
      else waiting.reject(fromWire(reply.error));
    }
    if (this.waiting.size === 0) this.transport.hold(false);
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiting of this.waiting.values()) waiting.reject(this.failure);
    this.waiting.clear();
    this.transport.hold(false);
  }

  private threadTransport(path: string): Transport {
    const worker = new Worker(writerWorkerUrl(), { workerData: { path } });
    worker.on('message', (message: WriterReply[] | WriterFailure) => {
      if ('failed' in message) this.fail(fromWire(message.failed));
      else this.answer(message);
    });
    worker.on('error', (error) => this.fail(new Error(`the SQLite writer thread stopped: ${error.message}`)));
    worker.on('exit', () => this.fail(new Error('the SQLite writer thread has exited')));
    worker.unref();
    return {
      post: batched((batch) => worker.postMessage(batch)),
      // A waiting write keeps the process alive; an idle writer does not.
      hold: (busy) => (busy ? worker.ref() : worker.unref()),
      stop: async () => {
        await worker.terminate();
      },
    };
  }

  private inlineTransport(path: string): Transport {
    const core = new WriterCore(openSqlite(path), (replies) => this.answer(replies));
    return {
      post: batched((batch) => core.receive(batch)),
      hold: () => undefined,
      stop: async () => undefined,
    };
  }
}

/**
 * Requests made in one turn of the event loop travel together: one message, one wake-up, one
 * COMMIT. The calls and the end of an open multi-call write go at once: the writer waits on them.
 */
function batched(deliver: (batch: WriterRequest[]) => void): (request: WriterRequest) => void {
  let outbox: WriterRequest[] = [];
  const flush = () => {
    if (outbox.length === 0) return;
    const batch = outbox;
    outbox = [];
    deliver(batch);
  };
  return (request) => {
    const first = outbox.push(request) === 1;
    if (request.kind === 'call' || request.kind === 'close') flush();
    else if (first) setImmediate(flush);
  };
}

/**
 * The worker runs compiled JavaScript beside this module: tsc's dist/ and the bundle in dist/bin/
 * each hold a writer-worker.js next to the code that starts it. Run from the TypeScript sources
 * (the tests), it is tsc's copy, which the test setup rebuilds whenever a source is newer.
 */
function writerWorkerUrl(): URL {
  const here = new URL(import.meta.url);
  return here.pathname.endsWith('.ts')
    ? pathToFileURL(packageFile('dist/adapters/storage/sqlite/writer-worker.js'))
    : new URL('./writer-worker.js', here);
}

/** A StoreTx-shaped set of aggregates whose every method becomes a StoreCall. */
export function callingAggregates(
  send: (call: StoreCall) => Promise<unknown>,
  names: readonly AggregateName[],
  methodsOf: (name: AggregateName) => readonly string[],
): Record<AggregateName, Record<string, (...args: unknown[]) => Promise<unknown>>> {
  const aggregates = {} as Record<AggregateName, Record<string, (...args: unknown[]) => Promise<unknown>>>;
  for (const aggregate of names) {
    aggregates[aggregate] = Object.fromEntries(
      methodsOf(aggregate).map((method) => [
        method,
        (...args: unknown[]) => send({ aggregate, method, args }),
      ]),
    );
  }
  return aggregates;
}
