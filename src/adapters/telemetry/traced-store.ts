import type { Store, StoreTx } from '../../ports/store/index.js';
import { inSpan, SpanKind } from './tracing.js';

/**
 * The store with a client span around every transaction: where a call waits on the database
 * shows in its trace. `engine`: `sqlite` or `postgresql` (OpenTelemetry's db.system.name).
 */
export class TracedStore implements Store {
  private readonly attributes: { 'db.system.name': string };

  constructor(
    private readonly inner: Store,
    engine: 'sqlite' | 'postgresql',
  ) {
    this.attributes = { 'db.system.name': engine };
  }

  read<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    return this.span('store.read', () => this.inner.read(work));
  }

  write<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    return this.span('store.write', () => this.inner.write(work));
  }

  writeOne<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    return this.span('store.write', () => this.inner.writeOne(work));
  }

  readOne<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    return this.span('store.read', () => this.inner.readOne(work));
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private span<T>(name: string, run: () => Promise<T>): Promise<T> {
    return inSpan(name, { kind: SpanKind.CLIENT, attributes: this.attributes }, run);
  }
}
