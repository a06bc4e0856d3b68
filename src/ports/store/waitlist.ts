import type { WaitlistEntry } from '../../domain/booking/waitlist.js';
import type { Instant } from '../../domain/time/instant.js';

/** Agents' wanted windows, first come first offered, and which instance matches a tenant's queue now. */
export interface WaitlistStore {
  /** Adds a WAITING entry. */
  insert(entry: WaitlistEntry): Promise<void>;
  /** The tenant's entry with this id; null when there is none in the tenant. */
  get(tenantId: string, id: string): Promise<WaitlistEntry | null>;
  /** Stores `next` if the entry is still at version next.version - 1; false when it moved on. */
  update(next: WaitlistEntry): Promise<boolean>;
  /** The tenant's WAITING and OFFERED entries, oldest first (the queue's order), at most `limit`. */
  queue(tenantId: string, limit: number): Promise<WaitlistEntry[]>;
  /** How many entries one person has WAITING or OFFERED in the tenant. */
  countOpen(tenantId: string, subject: string): Promise<number>;
  /** Tenants with any WAITING or OFFERED entry. */
  tenantsWaiting(): Promise<string[]>;
  /**
   * Takes (or extends) the right to match the tenant's queue until `until`: true when no other
   * owner holds it past `now`. One instance at a time offers, so the queue's order is kept.
   */
  lease(tenantId: string, owner: string, now: Instant, until: Instant): Promise<boolean>;
}
