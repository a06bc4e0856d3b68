import type { StoreTx } from './store/index.js';

/**
 * One audited call, as the trail keeps it: arguments only as a digest and a preview built
 * from an allowlist of non-personal fields (`preview` is that preview's JSON text).
 */
export interface AuditEntry {
  readonly at: number;
  readonly tenantId: string;
  readonly subject: string;
  readonly clientId: string;
  readonly transport: string;
  readonly tool: string;
  readonly kind: 'read' | 'write' | 'approval' | 'admin';
  readonly outcome: 'ok' | 'error' | 'input_required';
  readonly errorCode: string | null;
  readonly blockedReason: string | null;
  readonly argumentsDigest: string;
  readonly preview: string;
  /** The caller's W3C trace id when it sent one: joins logs across systems, but is not unique. */
  readonly traceId: string;
  /** Server-made, one per call: what names exactly one record. */
  readonly operationId: string;
  readonly durationMs: number;
}

/** An entry written but not yet linked into the chain (the sealer links it moments later). */
export interface PendingAuditEntry extends AuditEntry {
  readonly pendingId: number;
  /** Keyed when written; the sealer refuses to link an entry whose MAC does not match. */
  readonly mac: string;
}

/** A sealed record: its place in the chain and the MAC that links it to the one before. */
export interface AuditRecord extends AuditEntry {
  readonly seq: number;
  readonly prevHash: string;
  readonly hash: string;
  /** 1: unkeyed sha256 chain of releases before 0.2; 2: HMAC-SHA256 with the audit key. */
  readonly macVersion: 1 | 2;
  /** Which audit key sealed it (a fingerprint, never the key); null for version 1. */
  readonly keyId: string | null;
}

/** The newest sealed record. */
export interface AuditHead {
  readonly seq: number;
  readonly hash: string;
  readonly macVersion: 1 | 2;
  readonly keyId: string | null;
}

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

/** An entry with the MAC it carries until it is sealed. */
export interface SignedAuditEntry {
  readonly entry: AuditEntry;
  readonly mac: string;
}

/** A write call's record, committed in the same transaction as the call's effect. */
export interface EffectAudit {
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
