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

interface Pending {
  readonly entry: AuditEntry;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

const MAX_BATCH = 500;

/**
 * The trail behind the AuditLog port. Appends that arrive while a batch is
 * being written wait and go together in the next one: one transaction (and on
 * PostgreSQL one hold of the chain's lock) per batch instead of per record.
 * Nobody hears "appended" before their batch committed.
 */
export class StoreAuditLog implements AuditLog {
  private queue: Pending[] = [];
  private writing = false;

  constructor(private readonly store: Store) {}

  append(entry: AuditEntry): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ entry, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        try {
          await this.store.write(async (tx) => {
            for (const item of batch) await tx.appendAudit(item.entry);
          });
          for (const item of batch) item.resolve();
        } catch (error) {
          for (const item of batch) item.reject(error);
        }
      }
    } finally {
      this.writing = false;
    }
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
