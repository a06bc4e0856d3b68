import type { Instant } from '../../domain/time/instant.js';
import type { SlotCache } from '../../ports/slot-cache.js';

interface Entry {
  readonly calendarIds: readonly string[];
  readonly starts: Instant[];
  readonly storedAt: Instant;
  /** The moment a hold it counted lapses; served only before it. */
  readonly until: Instant | null;
}

/**
 * One process's slot cache: bounded (oldest entries go first), each entry at
 * most `maxAgeMs` old and never past the expiry of a hold it counted, dropped by any write to
 * one of its calendars.
 */
export class MemorySlotCache implements SlotCache {
  private readonly entries = new Map<string, Entry>();
  private readonly generations = new Map<string, number>();
  /** Bumped by forgetAll: every tenant's generation moves with it, known to the map or not. */
  private epoch = 0;

  constructor(
    readonly maxAgeMs: number,
    private readonly maxEntries = 1000,
    /** Told of every change to a tenant's free time, here or (through the bus) on another instance. */
    private readonly onChange: (tenantId: string) => void = () => undefined,
  ) {}

  generation(tenantId: string): number {
    return this.epoch + (this.generations.get(tenantId) ?? 0);
  }

  get(tenantId: string, key: string, now: Instant): Instant[] | undefined {
    const id = `${tenantId}\u0000${key}`;
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    const lapsed = entry.until !== null && now >= entry.until;
    if (now - entry.storedAt >= this.maxAgeMs || now < entry.storedAt || lapsed) {
      this.entries.delete(id);
      return undefined;
    }
    return entry.starts;
  }

  set(entry: Parameters<SlotCache['set']>[0]): void {
    if (entry.generation !== this.generation(entry.tenantId)) return;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(`${entry.tenantId}\u0000${entry.key}`, {
      calendarIds: entry.calendarIds,
      starts: entry.starts,
      storedAt: entry.now,
      until: entry.until ?? null,
    });
  }

  invalidate(tenantId: string, calendarIds?: readonly string[]): void {
    this.onChange(tenantId);
    this.generations.set(tenantId, (this.generations.get(tenantId) ?? 0) + 1);
    const prefix = `${tenantId}\u0000`;
    for (const [id, entry] of this.entries) {
      if (!id.startsWith(prefix)) continue;
      if (!calendarIds || entry.calendarIds.some((c) => calendarIds.includes(c))) this.entries.delete(id);
    }
  }

  /**
   * Everything dropped, every tenant's generation moved (a read begun before cannot store what it
   * read), and every tenant seen told its free time may have changed: for when invalidations may
   * have been missed (another instance's, while the bus was down).
   */
  forgetAll(): void {
    this.epoch++;
    const tenants = new Set([...this.generations.keys()]);
    for (const id of this.entries.keys()) tenants.add(id.slice(0, id.indexOf('\u0000')));
    this.entries.clear();
    for (const tenantId of tenants) this.onChange(tenantId);
  }
}
