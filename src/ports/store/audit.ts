import type {
  AuditEntry,
  AuditHead,
  AuditRecord,
  PendingAuditEntry,
  SignedAuditEntry,
} from '../audit-entry.js';

/** Which sealed records a search returns: every field given narrows it, none widens it. */
export interface AuditFilter {
  /** The person (or other principal) who acted. */
  readonly subject?: string;
  /** The connection, exactly as recorded. */
  readonly clientId?: string;
  readonly tool?: string;
  readonly kind?: AuditEntry['kind'];
  readonly outcome?: AuditEntry['outcome'];
  readonly errorCode?: string;
  /** Instants in ms: from inclusive, to exclusive. */
  readonly from?: number;
  readonly to?: number;
  /** Text the preview's JSON contains (a booking id, say): literal, ASCII case-insensitive. */
  readonly mentions?: string;
}

/**
 * A keyset page of a search, by seq: the newest records before `before` (older ones), or the
 * oldest after `after` (newer ones); both come newest first.
 */
export interface AuditPage {
  readonly before?: number;
  readonly after?: number;
  readonly limit: number;
}

/** The audit trail as stored: entries waiting to be sealed, and the chain. */
export interface AuditStore {
  /**
   * Writes an entry with the MAC computed where the audit key is (AuditLog.entryMac), to be
   * linked into the chain by the sealer; cheap, takes no chain lock.
   */
  append(entry: AuditEntry, mac: string): Promise<void>;
  /** Writes several entries in one statement: all or none. */
  appendAll(entries: readonly SignedAuditEntry[]): Promise<void>;
  /** Written entries not yet in the chain, oldest first. */
  pending(limit: number): Promise<PendingAuditEntry[]>;
  /** How many written entries wait to be linked into the chain, across every tenant. */
  countPending(): Promise<number>;
  /** The newest sealed record, or null for an empty chain. */
  head(): Promise<AuditHead | null>;
  /**
   * Appends sealed records (the caller computed their links from `expectedHead`) and removes the
   * pending entries they stand for, only if the chain's head is still `expectedHead`; false,
   * writing nothing, when it moved. Serialise on 'audit-chain' first.
   */
  link(
    records: readonly AuditRecord[],
    pendingIds: readonly number[],
    expectedHead: Pick<AuditHead, 'seq' | 'hash'> | null,
  ): Promise<boolean>;
  /** Sealed records after `afterSeq`, in order. */
  records(afterSeq: number, limit: number): Promise<AuditRecord[]>;
  /** The sealed record of one confirm_booking or confirm_changes call (its operation id) in the tenant; null until sealed. */
  seqOfOperation(tenantId: string, operationId: string): Promise<number | null>;
  /** One tenant's sealed records that match `filter`, a page of them, newest first. */
  search(tenantId: string, filter: AuditFilter, page: AuditPage): Promise<AuditRecord[]>;
}
