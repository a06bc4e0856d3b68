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

/** An entry with the MAC it carries until it is sealed. */
export interface SignedAuditEntry {
  readonly entry: AuditEntry;
  readonly mac: string;
}
