import type { AuditEntry, AuditRecord } from '../../ports/audit.js';

/** audit_log columns, shared by the SQL adapters. */
export interface AuditRow {
  seq: number | string;
  at: number | string;
  tenant_id: string;
  subject: string;
  client_id: string;
  transport: string;
  tool: string;
  kind: AuditEntry['kind'];
  outcome: AuditEntry['outcome'];
  error_code: string | null;
  blocked_reason: string | null;
  arguments_digest: string;
  preview: string;
  trace_id: string;
  duration_ms: number;
  prev_hash: string;
  hash: string;
}

export const auditColumns = [
  'seq',
  'at',
  'tenant_id',
  'subject',
  'client_id',
  'transport',
  'tool',
  'kind',
  'outcome',
  'error_code',
  'blocked_reason',
  'arguments_digest',
  'preview',
  'trace_id',
  'duration_ms',
  'prev_hash',
  'hash',
] as const;

export function auditRecordOf(row: AuditRow): AuditRecord {
  return {
    seq: Number(row.seq),
    at: Number(row.at),
    tenantId: row.tenant_id,
    subject: row.subject,
    clientId: row.client_id,
    transport: row.transport,
    tool: row.tool,
    kind: row.kind,
    outcome: row.outcome,
    errorCode: row.error_code,
    blockedReason: row.blocked_reason,
    argumentsDigest: row.arguments_digest,
    preview: JSON.parse(row.preview) as unknown,
    traceId: row.trace_id,
    durationMs: Number(row.duration_ms),
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}

export function auditRowValues(seq: number, entry: AuditEntry, prevHash: string, hash: string): unknown[] {
  return [
    seq,
    entry.at,
    entry.tenantId,
    entry.subject,
    entry.clientId,
    entry.transport,
    entry.tool,
    entry.kind,
    entry.outcome,
    entry.errorCode,
    entry.blockedReason,
    entry.argumentsDigest,
    JSON.stringify(entry.preview ?? null),
    entry.traceId,
    entry.durationMs,
    prevHash,
    hash,
  ];
}
