import type { AuditEntry, AuditRecord, PendingAuditEntry } from '../../ports/audit.js';

/** Columns of an entry, shared by audit_pending and audit_log, in table order. */
export const auditEntryColumns = [
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
  'operation_id',
] as const;

/** audit_log columns: the entry, then its place in the chain. */
export const auditColumns = [
  'seq',
  ...auditEntryColumns,
  'prev_hash',
  'hash',
  'mac_version',
  'key_id',
] as const;

interface EntryRow {
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
  operation_id: string;
}

export interface PendingAuditRow extends EntryRow {
  id: number | string;
  entry_mac: string;
}

export interface AuditRow extends EntryRow {
  seq: number | string;
  prev_hash: string;
  hash: string;
  mac_version: number;
  key_id: string | null;
}

function entryOf(row: EntryRow): AuditEntry {
  return {
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
    preview: row.preview,
    traceId: row.trace_id,
    operationId: row.operation_id,
    durationMs: Number(row.duration_ms),
  };
}

export function pendingEntryOf(row: PendingAuditRow): PendingAuditEntry {
  return { ...entryOf(row), pendingId: Number(row.id), mac: row.entry_mac };
}

export function auditRecordOf(row: AuditRow): AuditRecord {
  return {
    ...entryOf(row),
    seq: Number(row.seq),
    prevHash: row.prev_hash,
    hash: row.hash,
    macVersion: Number(row.mac_version) === 1 ? 1 : 2,
    keyId: row.key_id,
  };
}

/** Values for auditEntryColumns. */
export function auditEntryValues(entry: AuditEntry): unknown[] {
  return [
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
    entry.preview,
    entry.traceId,
    entry.durationMs,
    entry.operationId,
  ];
}

/** Values for auditColumns. */
export function auditRecordValues(record: AuditRecord): unknown[] {
  return [
    record.seq,
    ...auditEntryValues(record),
    record.prevHash,
    record.hash,
    record.macVersion,
    record.keyId,
  ];
}
