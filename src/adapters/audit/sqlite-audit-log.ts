import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { AuditEntry, AuditLog, AuditRecord } from '../../ports/audit.js';
import type { SqliteDb } from '../storage/sqlite/sqlite-database.js';
import type { SqliteStore } from '../storage/sqlite/sqlite-store.js';

const GENESIS = 'sha256:genesis';

interface Row {
  seq: number;
  at: number;
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

function entryOf(row: Row): AuditEntry {
  return {
    at: row.at,
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
    durationMs: row.duration_ms,
  };
}

/** Each record's hash covers the previous hash, its sequence number and its canonical content. */
export function chainHash(prevHash: string, seq: number, entry: AuditEntry): string {
  const body = canonicalize({ prevHash, seq, entry }) ?? '';
  return `sha256:${createHash('sha256').update(body).digest('hex')}`;
}

/** Appends inside the store's write queue, so the chain is extended by one writer at a time. */
export class SqliteAuditLog implements AuditLog {
  constructor(private readonly store: SqliteStore) {}

  append(entry: AuditEntry): Promise<void> {
    return this.store.write(async () => appendAudit(this.store.writer, entry));
  }
}

export function appendAudit(db: SqliteDb, entry: AuditEntry): void {
  const last = db.prepare('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1').get() as
    { seq: number; hash: string } | undefined;
  const seq = (last?.seq ?? 0) + 1;
  const prevHash = last?.hash ?? GENESIS;
  db.prepare(
    `INSERT INTO audit_log (seq, at, tenant_id, subject, client_id, transport, tool, kind, outcome, error_code,
       blocked_reason, arguments_digest, preview, trace_id, duration_ms, prev_hash, hash)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
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
    chainHash(prevHash, seq, entry),
  );
}

export interface VerifyResult {
  readonly ok: boolean;
  readonly records: number;
  readonly firstBroken?: { readonly seq: number; readonly reason: string };
}

/** Walks the whole chain; reports the first record whose link or content does not verify. */
export function verifyAudit(db: SqliteDb): VerifyResult {
  let prevHash = GENESIS;
  let expectedSeq = 1;
  let records = 0;
  for (const row of db.prepare('SELECT * FROM audit_log ORDER BY seq').iterate() as IterableIterator<Row>) {
    records++;
    if (row.seq !== expectedSeq)
      return { ok: false, records, firstBroken: { seq: row.seq, reason: `expected seq ${expectedSeq}` } };
    if (row.prev_hash !== prevHash)
      return { ok: false, records, firstBroken: { seq: row.seq, reason: 'prev_hash does not link' } };
    if (chainHash(prevHash, row.seq, entryOf(row)) !== row.hash) {
      return { ok: false, records, firstBroken: { seq: row.seq, reason: 'content does not match its hash' } };
    }
    prevHash = row.hash;
    expectedSeq++;
  }
  return { ok: true, records };
}

export function tailAudit(db: SqliteDb, count: number): AuditRecord[] {
  const rows = db.prepare('SELECT * FROM audit_log ORDER BY seq DESC LIMIT ?').all(count) as Row[];
  return rows
    .reverse()
    .map((row) => ({ ...entryOf(row), seq: row.seq, prevHash: row.prev_hash, hash: row.hash }));
}
