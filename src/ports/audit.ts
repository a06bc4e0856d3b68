import type { StoreTx } from './store/index.js';
import type { AuditEntry, SignedAuditEntry } from './audit-entry.js';

export type {
  AuditEntry,
  AuditHead,
  AuditRecord,
  PendingAuditEntry,
  SignedAuditEntry,
} from './audit-entry.js';

/** How a call ended when that differs from plain success. */
export interface CallEnd {
  readonly outcome: 'error' | 'input_required';
  readonly code: string;
  readonly message: string;
}

/** The trail of calls that changed nothing durable (reads, refusals), batched; writes use EffectAudit. */
export interface AuditLog {
  /** Resolves once the entry is durable; one entry's failure never loses another's. */
  append(entry: AuditEntry): Promise<void>;
  /** The MAC an entry carries while it waits to be sealed (see StoreTx.appendAudit). */
  entryMac(entry: AuditEntry): string;
  /** Links every durable entry into the chain soon (after a write committed its own). */
  seal(): void;
}

/** A write call's record, committed in the same transaction as the call's effect. */
export interface EffectAudit {
  /** Names this call's record in the trail (a receipt points at the call that confirmed it). */
  readonly operationId: string;
  /** Adds the record to `tx`; `end` when the committed effect is answered as a failure or a question. */
  recordIn(tx: StoreTx, end?: CallEnd): Promise<void>;
  /** The record for a store step that writes it itself (the hold's one step); call `committed` once it did. */
  signed(end?: CallEnd): SignedAuditEntry;
  /** The record was committed with the effect: it must not be appended again. */
  committed(): void;
  /**
   * Names what the call made (`{ bookingId }` of a new hold) in the record's preview, so the
   * trail of a booking starts with the call that created it. Ids only: never personal data.
   */
  made(ids: Readonly<Record<string, string>> | null): void;
}
