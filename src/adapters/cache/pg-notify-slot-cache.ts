import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Instant } from '../../domain/time/instant.js';
import type { SlotCache } from '../../ports/slot-cache.js';
import type { Logger } from '../log/json-logger.js';
import { PgListener } from '../storage/postgres/pg-listener.js';
import type { MemorySlotCache } from './memory-slot-cache.js';

interface Invalidation {
  readonly origin: string;
  readonly tenantId: string;
  readonly calendarIds?: readonly string[];
}

/**
 * Keeps every instance's local slot cache honest: an invalidation here is
 * published with NOTIFY, and invalidations from other instances arrive by
 * LISTEN. Should the listening connection drop, the local age bound still
 * caps staleness; once it listens again, everything cached is forgotten
 * (what was announced meanwhile is unknown).
 */
export class PgNotifySlotCache implements SlotCache {
  private readonly origin = randomUUID();
  private listener: PgListener | null = null;

  private constructor(
    private readonly local: MemorySlotCache,
    private readonly pool: pg.Pool,
    private readonly channel: string,
    private readonly logger: Logger,
  ) {}

  static async start(
    local: MemorySlotCache,
    pool: pg.Pool,
    connectionString: string,
    schema: string,
    logger: Logger,
  ): Promise<PgNotifySlotCache> {
    const cache = new PgNotifySlotCache(local, pool, `holdfast_slots_${schema}`, logger);
    await cache.listen(connectionString);
    return cache;
  }

  private async listen(connectionString: string): Promise<void> {
    this.listener = await PgListener.start({
      connectionString,
      channels: [this.channel],
      applicationName: `holdfast slots ${this.channel}`,
      onNotification: (_channel, payload) => {
        const event = JSON.parse(payload) as Invalidation;
        if (event.origin !== this.origin && typeof event.tenantId === 'string')
          this.local.invalidate(
            event.tenantId,
            Array.isArray(event.calendarIds) ? event.calendarIds : undefined,
          );
      },
      onListening: (again) => {
        if (!again) return;
        this.local.forgetAll();
        this.logger.warn('slot cache listener restored; the cache starts empty', {});
      },
      onLost: (reason) =>
        this.logger.warn('slot cache listener lost; the age bound still applies', { error: reason }),
    });
  }

  generation(tenantId: string): number {
    return this.local.generation(tenantId);
  }

  get(tenantId: string, key: string, now: Instant): Instant[] | undefined {
    return this.local.get(tenantId, key, now);
  }

  set(entry: Parameters<SlotCache['set']>[0]): void {
    this.local.set(entry);
  }

  invalidate(tenantId: string, calendarIds?: readonly string[]): void {
    this.local.invalidate(tenantId, calendarIds);
    // Writes of one event-loop turn are published together: one NOTIFY per tenant, not one per write.
    const pending = this.outgoing.get(tenantId);
    if (pending === undefined) this.outgoing.set(tenantId, calendarIds ? new Set(calendarIds) : 'all');
    else if (pending !== 'all') {
      if (calendarIds) for (const id of calendarIds) pending.add(id);
      else this.outgoing.set(tenantId, 'all');
    }
    if (!this.publishScheduled) {
      this.publishScheduled = true;
      setImmediate(() => this.publish());
    }
  }

  private readonly outgoing = new Map<string, Set<string> | 'all'>();
  private publishScheduled = false;

  private publish(): void {
    this.publishScheduled = false;
    for (const [tenantId, ids] of this.outgoing) {
      // NOTIFY payloads stop at 8000 bytes: past a few hundred calendars, say "all of the tenant".
      const calendarIds = ids === 'all' || ids.size > 200 ? undefined : [...ids];
      const event: Invalidation = { origin: this.origin, tenantId, ...(calendarIds ? { calendarIds } : {}) };
      this.pool
        .query('SELECT pg_notify($1, $2)', [this.channel, JSON.stringify(event)])
        .catch((error: unknown) => this.logger.warn('slot cache notify failed', { error: String(error) }));
    }
    this.outgoing.clear();
  }

  async close(): Promise<void> {
    await this.listener?.close();
  }
}
