import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { AuditRecord } from '../../ports/audit.js';
import type { Store } from '../../ports/store.js';
import { GENESIS } from './audit-chain.js';
import type { AuditKey } from './audit-key.js';
import type { Checkpoint } from './checkpoint.js';
import { checkpointAuthentic } from './checkpoint.js';

export interface VerifyResult {
  readonly ok: boolean;
  /** Sealed records read. */
  readonly records: number;
  /** Of which on the unkeyed chain of earlier releases. */
  readonly legacyRecords: number;
  /** Entries written but not yet linked (a running server seals them within moments). */
  readonly pending: number;
  readonly checkpointsChecked: number;
  /** The first record that does not verify; `lastSeq` bounds a range when only a checkpoint can tell. */
  readonly firstBroken?: { readonly seq: number; readonly lastSeq?: number; readonly reason: string };
}

/** The hash of a record sealed by releases before keyed audit (version 1), or null if unreadable. */
function legacyHash(record: AuditRecord): string | null {
  try {
    const { seq, prevHash, hash: _h, macVersion: _v, keyId: _k, ...fields } = record;
    const entry = { ...fields, preview: JSON.parse(record.preview) as unknown };
    const body = canonicalize({ prevHash, seq, entry });
    return body === undefined ? null : `sha256:${createHash('sha256').update(body).digest('hex')}`;
  } catch {
    // A deep or malformed stored value must not stop verification: the record simply fails.
    return null;
  }
}

/**
 * Walks the whole chain in pages and reports the first record whose position, link or MAC does
 * not verify, and any checkpoint the chain no longer matches or reaches. Iterative and
 * constant in stack depth whatever a stored record contains.
 */
export async function verifyAudit(
  store: Store,
  key: AuditKey,
  checkpoints: readonly Checkpoint[] = [],
  pageSize = 1000,
): Promise<VerifyResult> {
  const forged = checkpoints.findIndex((c) => !checkpointAuthentic(key, c));
  const pending = await store.read((tx) => tx.countPendingAudit());
  const base = { records: 0, legacyRecords: 0, pending, checkpointsChecked: 0 };
  if (forged >= 0) {
    return {
      ...base,
      ok: false,
      firstBroken: { seq: checkpoints[forged]!.seq, reason: `checkpoint #${forged + 1} is not authentic` },
    };
  }
  const bySeq = new Map(checkpoints.map((c) => [c.seq, c]));
  let lastGood = 0;
  let prevHash = GENESIS;
  let expectedSeq = 1;
  let records = 0;
  let legacyRecords = 0;
  let keyed = false;
  let checked = 0;
  const result = (firstBroken?: VerifyResult['firstBroken']): VerifyResult => ({
    ok: firstBroken === undefined,
    records,
    legacyRecords,
    pending,
    checkpointsChecked: checked,
    ...(firstBroken ? { firstBroken } : {}),
  });
  for (;;) {
    const page = await store.read((tx) => tx.auditRecords(expectedSeq - 1, pageSize));
    for (const record of page) {
      records++;
      const broken = (reason: string) => result({ seq: expectedSeq, reason });
      if (record.seq !== expectedSeq)
        return broken(`record ${expectedSeq} is missing (found ${record.seq} next)`);
      if (record.prevHash !== prevHash) return broken('does not link to the record before it');
      if (record.macVersion === 1) {
        if (keyed) return broken('an unkeyed record after keyed ones');
        if (legacyHash(record) !== record.hash) return broken('content does not match its hash');
        legacyRecords++;
      } else {
        keyed = true;
        if (record.keyId !== key.keyId) return broken(`sealed with another audit key (${record.keyId})`);
        if (key.recordMac(record.seq, record.prevHash, record) !== record.hash)
          return broken('content does not match its MAC');
      }
      const checkpoint = bySeq.get(record.seq);
      if (checkpoint) {
        checked++;
        if (checkpoint.head !== record.hash) {
          return result({
            seq: lastGood + 1,
            lastSeq: record.seq,
            reason: `the chain was rewritten: it no longer matches the checkpoint of ${checkpoint.at} (seq ${checkpoint.seq}); the change lies between seq ${lastGood + 1} and ${record.seq}`,
          });
        }
        lastGood = record.seq;
      }
      prevHash = record.hash;
      expectedSeq++;
    }
    if (page.length < pageSize) break;
  }
  const newest = checkpoints.reduce<Checkpoint | null>((a, c) => (a === null || c.seq > a.seq ? c : a), null);
  if (newest && newest.seq >= expectedSeq) {
    return result({
      seq: expectedSeq,
      lastSeq: newest.seq,
      reason: `records ${expectedSeq} to ${newest.seq} are gone: the checkpoint of ${newest.at} recorded ${newest.seq} records`,
    });
  }
  return result();
}
