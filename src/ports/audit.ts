/** One audited call, as the trail keeps it (arguments only as a digest and a redacted preview). */
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
  readonly preview: unknown;
  readonly traceId: string;
  readonly durationMs: number;
}

export interface AuditRecord extends AuditEntry {
  readonly seq: number;
  readonly prevHash: string;
  readonly hash: string;
}

/** Append-only, hash-chained trail. */
export interface AuditLog {
  append(entry: AuditEntry): Promise<void>;
}
