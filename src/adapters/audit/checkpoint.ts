import type { AuditHead } from '../../ports/audit.js';
import type { AuditKey } from './audit-key.js';

/**
 * A checkpoint pins the chain from outside the database: "at `at`, the chain had `seq`
 * records and ended in `head`". Kept by the operator (a file elsewhere, a log shipped off the
 * machine), it lets `audit verify --checkpoint` detect truncation, emptying and a chain
 * rewritten by someone who holds the key. MAC'd with a key derived from the audit key.
 */
export interface Checkpoint {
  readonly type: 'holdfast-audit-checkpoint';
  readonly seq: number;
  readonly head: string;
  readonly at: string;
  readonly keyId: string;
  readonly mac: string;
}

const TYPE = 'holdfast-audit-checkpoint';

export function makeCheckpoint(key: AuditKey, head: AuditHead | null, at: string): Checkpoint {
  const seq = head?.seq ?? 0;
  const hash = head?.hash ?? 'empty';
  return {
    type: TYPE,
    seq,
    head: hash,
    at,
    keyId: key.keyId,
    mac: key.checkpointMac([seq, hash, at, key.keyId]),
  };
}

export function checkpointAuthentic(key: AuditKey, c: Checkpoint): boolean {
  return c.keyId === key.keyId && c.mac === key.checkpointMac([c.seq, c.head, c.at, c.keyId]);
}

export interface ParsedCheckpoints {
  readonly checkpoints: Checkpoint[];
  /** 1-based line numbers that claim to be checkpoints but are malformed. */
  readonly malformedLines: number[];
}

/**
 * Reads checkpoint lines from a file the operator kept: lines printed by `holdfast audit
 * checkpoint`, or the server's JSON log lines that carry a `checkpoint` field. Every other line
 * is ignored, so a whole log file can be given; a line that is a checkpoint but lacks a field
 * is reported.
 */
export function parseCheckpoints(text: string): ParsedCheckpoints {
  const checkpoints: Checkpoint[] = [];
  const malformedLines: number[] = [];
  text.split('\n').forEach((line, index) => {
    if (!line.includes(TYPE)) return;
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return; // not a checkpoint line (a log line that happens to mention the word)
    }
    const candidate = (parsed?.type === TYPE ? parsed : parsed?.checkpoint) as
      Record<string, unknown> | undefined;
    if (candidate?.type !== TYPE) return;
    if (
      Number.isSafeInteger(candidate.seq) &&
      typeof candidate.head === 'string' &&
      typeof candidate.at === 'string' &&
      typeof candidate.keyId === 'string' &&
      typeof candidate.mac === 'string'
    )
      checkpoints.push(candidate as unknown as Checkpoint);
    else malformedLines.push(index + 1);
  });
  return { checkpoints, malformedLines };
}
