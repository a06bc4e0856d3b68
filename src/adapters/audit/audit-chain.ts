import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { AuditEntry, AuditLog, AuditRecord } from '../../ports/audit.js';
import type { Store } from '../../ports/store.js';

export const GENESIS = 'sha256:genesis';

/** Each record's hash covers the previous hash, its sequence number and its canonical content. */
export function chainHash(prevHash: string, seq: number, entry: AuditEntry): string {
  const body = canonicalize({ prevHash, seq, entry }) ?? '';
  return `sha256:${createHash('sha256').update(body).digest('hex')}`;
}

export function entryOf(record: AuditRecord): AuditEntry {
  return {
    at: record.at,
    tenantId: record.tenantId,
    subject: record.subject,
    clientId: record.clientId,
    transport: record.transport,
    tool: record.tool,
    kind: record.kind,
    outcome: record.outcome,
    errorCode: record.errorCode,
    blockedReason: record.blockedReason,
    argumentsDigest: record.argumentsDigest,
    preview: record.preview,
    traceId: record.traceId,
    durationMs: record.durationMs,
  };
}

/** The trail behind the AuditLog port: appends go through the store's write path. */
export class StoreAuditLog implements AuditLog {
  constructor(private readonly store: Store) {}

  append(entry: AuditEntry): Promise<void> {
    return this.store.write((tx) => tx.appendAudit(entry));
  }
}

export interface VerifyResult {
  readonly ok: boolean;
  readonly records: number;
  readonly firstBroken?: { readonly seq: number; readonly reason: string };
}

/** Walks the whole chain in pages; reports the first record whose link or content does not verify. */
export async function verifyAudit(store: Store, pageSize = 1000): Promise<VerifyResult> {
  let prevHash = GENESIS;
  let expectedSeq = 1;
  let records = 0;
  for (;;) {
    const page = await store.read((tx) => tx.auditRecords(expectedSeq - 1, pageSize));
    for (const record of page) {
      records++;
      const broken = (reason: string): VerifyResult => ({
        ok: false,
        records,
        firstBroken: { seq: record.seq, reason },
      });
      if (record.seq !== expectedSeq) return broken(`expected seq ${expectedSeq}`);
      if (record.prevHash !== prevHash) return broken('prev_hash does not link');
      if (chainHash(prevHash, record.seq, entryOf(record)) !== record.hash)
        return broken('content does not match its hash');
      prevHash = record.hash;
      expectedSeq++;
    }
    if (page.length < pageSize) return { ok: true, records };
  }
}

export async function tailAudit(store: Store, count: number): Promise<AuditRecord[]> {
  return store.read(async (tx) => tx.auditRecords(Math.max(0, (await tx.lastAuditSeq()) - count), count));
}
