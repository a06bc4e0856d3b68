import type { AuditEntry, AuditHead, AuditRecord, PendingAuditEntry } from '../audit.js';

/** The audit trail as stored: entries waiting to be sealed, and the chain. */
export interface AuditStore {
  /**
   * Writes an entry with the MAC computed where the audit key is (AuditLog.entryMac), to be
   * linked into the chain by the sealer; cheap, takes no chain lock.
   */
  append(entry: AuditEntry, mac: string): Promise<void>;
  /** Written entries not yet in the chain, oldest first. */
  pending(limit: number): Promise<PendingAuditEntry[]>;
  countPending(): Promise<number>;
  removePending(pendingIds: readonly number[]): Promise<void>;
  /** The newest sealed record, or null for an empty chain. Serialise on 'audit-chain' first when extending it. */
  head(): Promise<AuditHead | null>;
  /** Appends sealed records; the caller computed their links. */
  insertRecords(records: readonly AuditRecord[]): Promise<void>;
  /** Sealed records after `afterSeq`, in order. */
  records(afterSeq: number, limit: number): Promise<AuditRecord[]>;
}
