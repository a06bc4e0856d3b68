import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Instant } from '../../domain/time/instant.js';
import type { SlotCache } from '../../ports/slot-cache.js';
import type { Logger } from '../log/json-logger.js';

interface Invalidation {
  readonly origin: string;
  readonly tenantId: string;
  readonly calendarIds?: readonly string[];
}

/**
 * Keeps every instance's local slot cache honest: an invalidation here is
 * published with NOTIFY, and invalidations from other instances arrive by
 * LISTEN. Should the listening connection drop, the local age bound still
 * caps staleness.
 */
export class PgNotifySlotCache implements SlotCache {
  private readonly origin = randomUUID();
  private listener: pg.Client | null = null;

  private constructor(
    private readonly local: SlotCache,
    private readonly pool: pg.Pool,
    private readonly channel: string,
    private readonly logger: Logger,
  ) {}

  static async start(
    local: SlotCache,
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
    const client = new pg.Client({ connectionString });
    client.on('notification', (message) => {
      if (message.channel !== this.channel || !message.payload) return;
      const event = JSON.parse(message.payload) as Invalidation;
      if (event.origin !== this.origin) this.local.invalidate(event.tenantId, event.calendarIds);
    });
    client.on('error', (error) =>
      this.logger.warn('slot cache listener lost; the age bound still applies', { error: error.message }),
    );
    await client.connect();
    await client.query(`LISTEN ${this.channel}`);
    this.listener = client;
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
    await this.listener?.end();
  }
}
