import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { AuditRecord } from '../../ports/audit.js';
import type { Store } from '../../ports/store/index.js';
import { GENESIS, QUARANTINE } from './audit-chain.js';
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
  /** Records standing for pending entries that failed their MAC (forged or edited before sealing). */
  readonly quarantined: readonly number[];
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

/** Where a walk of the chain stands: the next record must have `seq` and link to `prevHash`. */
export interface ChainPosition {
  readonly seq: number;
  readonly prevHash: string;
  /** A keyed record was passed: no unkeyed one may follow. */
  readonly keyed: boolean;
}

export const CHAIN_START: ChainPosition = { seq: 1, prevHash: GENESIS, keyed: false };

/**
 * Why `record` does not continue the chain at `at` — its place, its link, its MAC — or null
 * when it does. What `verifyAudit` and the console's incremental check both apply to each record.
 */
export function recordFault(
  record: AuditRecord,
  at: ChainPosition,
  key: AuditKey,
  allowUnkeyed: boolean,
): string | null {
  if (record.seq !== at.seq) return `record ${at.seq} is missing (found ${record.seq} next)`;
  if (record.prevHash !== at.prevHash) return 'does not link to the record before it';
  if (record.macVersion === 1) {
    if (at.keyed) return 'an unkeyed record after keyed ones';
    if (!allowUnkeyed)
      return 'not keyed: written before keyed audit, or rewritten without the key; if this database predates keyed audit, verify with --allow-unkeyed';
    return legacyHash(record) === record.hash ? null : 'content does not match its hash';
  }
  if (record.keyId !== key.keyId) return `sealed with another audit key (${record.keyId})`;
  if (key.recordMac(record.seq, record.prevHash, record) !== record.hash)
    return 'content does not match its MAC';
  return null;
}

/** The position after a record that verified. */
export function nextPosition(at: ChainPosition, record: AuditRecord): ChainPosition {
  return { seq: at.seq + 1, prevHash: record.hash, keyed: at.keyed || record.macVersion !== 1 };
}

/**
 * Walks the whole chain in pages and reports the first record whose position, link or MAC does
 * not verify, and any checkpoint the chain no longer matches or reaches. Iterative and
 * constant in stack depth whatever a stored record contains.
 */
export interface VerifyOptions {
  /** Operator notes kept outside the database: the chain must still match and reach them. */
  readonly checkpoints?: readonly Checkpoint[];
  /**
   * Accept records on the unkeyed chain of releases before keyed audit. Off by default: anyone
   * with database access can write such a chain, so it proves nothing unless the operator knows
   * the database predates keyed audit.
   */
  readonly allowUnkeyed?: boolean;
  readonly pageSize?: number;
}

export async function verifyAudit(
  store: Store,
  key: AuditKey,
  options: VerifyOptions = {},
): Promise<VerifyResult> {
  const checkpoints = options.checkpoints ?? [];
  const pageSize = options.pageSize ?? 1000;
  const forged = checkpoints.findIndex((c) => !checkpointAuthentic(key, c));
  const pending = await store.read((tx) => tx.audit.countPending());
  const base = { records: 0, legacyRecords: 0, pending, checkpointsChecked: 0, quarantined: [] };
  if (forged >= 0) {
    return {
      ...base,
      ok: false,
      firstBroken: { seq: checkpoints[forged]!.seq, reason: `checkpoint #${forged + 1} is not authentic` },
    };
  }
  // Several checkpoints may name one seq (taken at different times): every one of them must match.
  const bySeq = new Map<number, Checkpoint[]>();
  for (const c of checkpoints) bySeq.set(c.seq, [...(bySeq.get(c.seq) ?? []), c]);
  const quarantined: number[] = [];
  let lastGood = 0;
  let at = CHAIN_START;
  let records = 0;
  let legacyRecords = 0;
  let checked = 0;
  const result = (firstBroken?: VerifyResult['firstBroken']): VerifyResult => ({
    ok: firstBroken === undefined,
    records,
    legacyRecords,
    pending,
    checkpointsChecked: checked,
    quarantined,
    ...(firstBroken ? { firstBroken } : {}),
  });
  const newest = checkpoints.reduce<Checkpoint | null>((a, c) => (a === null || c.seq > a.seq ? c : a), null);
  const newestAt = newest ? Date.parse(newest.at) : Number.NaN;
  // A record within the newest checkpoint's count but made after it cannot be one it counted: it
  // took the number of a record that is gone (the server sealed on after the tail was deleted).
  let firstAfterCheckpoint: number | null = null;
  for (;;) {
    const page = await store.read((tx) => tx.audit.records(at.seq - 1, pageSize));
    for (const record of page) {
      records++;
      if (firstAfterCheckpoint === null && newest && record.seq <= newest.seq && record.at > newestAt)
        firstAfterCheckpoint = record.seq;
      const fault = recordFault(record, at, key, options.allowUnkeyed ?? false);
      if (fault !== null) return result({ seq: at.seq, reason: fault });
      if (record.macVersion === 1) legacyRecords++;
      if (record.tool === QUARANTINE) quarantined.push(record.seq);
      for (const checkpoint of bySeq.get(record.seq) ?? []) {
        checked++;
        if (checkpoint.head !== record.hash) {
          return result({
            seq: lastGood + 1,
            lastSeq: record.seq,
            reason: `the chain was rewritten: it no longer matches the checkpoint of ${checkpoint.at} (seq ${checkpoint.seq}); the change lies between seq ${lastGood + 1} and ${record.seq}`,
          });
        }
      }
      if (bySeq.has(record.seq)) lastGood = record.seq;
      at = nextPosition(at, record);
    }
    if (page.length < pageSize) break;
  }
  if (newest && newest.seq >= at.seq) {
    const first = firstAfterCheckpoint ?? at.seq;
    return result({
      seq: first,
      lastSeq: newest.seq,
      reason:
        first === at.seq
          ? `records ${first} to ${newest.seq} are gone: the checkpoint of ${newest.at} recorded ${newest.seq} records`
          : `records ${first} to ${newest.seq} are gone: the checkpoint of ${newest.at} recorded ${newest.seq} records, and records ${first} to ${at.seq - 1} were written after it in their place`,
    });
  }
  if (quarantined.length > 0) {
    return result({
      seq: quarantined[0]!,
      reason: `${quarantined.length} entr${quarantined.length === 1 ? 'y was' : 'ies were'} forged or edited in the database before sealing and quarantined (seq ${quarantined.join(', ')})`,
    });
  }
  return result();
}
