import type { AuditEntry, AuditLog, AuditRecord, PendingAuditEntry } from '../../ports/audit.js';
import type { Store, StoreTx } from '../../ports/store/index.js';
import type { AuditKey } from './audit-key.js';

export const GENESIS = 'sha256:genesis';
const SEAL_BATCH = 500;

/** The chain was sealed with another key than this process holds: sealing stops rather than fork it. */
export class AuditKeyMismatchError extends Error {
  override readonly name = 'AuditKeyMismatchError';
}

/** The tool name of a record standing for a pending entry that failed its MAC. */
export const QUARANTINE = 'audit_quarantine';

/**
 * What gets sealed for a pending entry: itself, or — when its MAC does not match, because it
 * was forged or edited in the database while it waited — a quarantine record in its place, so
 * the tampering itself becomes part of the tamper-evident chain and `verify` reports it.
 */
function sealable(key: AuditKey, pending: PendingAuditEntry): AuditEntry {
  const { pendingId, mac, ...entry } = pending;
  if (mac === key.entryMac(entry)) return entry;
  return {
    ...entry,
    tool: QUARANTINE,
    kind: 'admin',
    outcome: 'error',
    errorCode: 'INTERNAL',
    blockedReason: 'a pending entry failed its MAC: forged or edited in the database before sealing',
    argumentsDigest: 'none',
    preview: JSON.stringify({
      pendingId,
      claimed: { tool: entry.tool.slice(0, 60), traceId: entry.traceId.slice(0, 64), at: entry.at },
    }),
  };
}

/**
 * Links written entries into the chain, oldest first, inside `tx`: each record gets the next
 * sequence number, its predecessor's hash and its own MAC. Serialised across instances.
 * Returns the records it sealed.
 */
export async function sealPending(tx: StoreTx, key: AuditKey): Promise<AuditRecord[]> {
  await tx.serialize('audit-chain');
  const pending = await tx.audit.pending(SEAL_BATCH);
  if (pending.length === 0) return [];
  const head = await tx.audit.head();
  if (head?.macVersion === 2 && head.keyId !== key.keyId) {
    throw new AuditKeyMismatchError(
      `The audit chain is sealed with key ${head.keyId}; this process holds key ${key.keyId}. ` +
        'Give every instance and operator command the same audit key.',
    );
  }
  let seq = head?.seq ?? 0;
  let prevHash = head?.hash ?? GENESIS;
  const records = pending.map((p): AuditRecord => {
    const entry = sealable(key, p);
    seq += 1;
    const hash = key.recordMac(seq, prevHash, entry);
    const record: AuditRecord = { ...entry, seq, prevHash, hash, macVersion: 2, keyId: key.keyId };
    prevHash = hash;
    return record;
  });
  await tx.audit.insertRecords(records);
  await tx.audit.removePending(pending.map((p) => p.pendingId));
  return records;
}

interface Queued {
  readonly entry: AuditEntry;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

const MAX_BATCH = 500;

/**
 * The trail behind the AuditLog port. Entries that arrive while a batch is being written go
 * together in the next transaction, which also seals everything pending (including records
 * that write calls committed with their effects). If a batch fails, its entries are retried
 * one by one, so a bad entry can only lose itself. Nobody hears "appended" before the entry
 * is durable.
 */
export class StoreAuditLog implements AuditLog {
  private queue: Queued[] = [];
  private sealWanted = false;
  private draining: Promise<void> | null = null;

  constructor(
    private readonly store: Store,
    private readonly key: AuditKey,
    private readonly hooks: {
      readonly onSealed?: (records: readonly AuditRecord[]) => void;
      readonly onError?: (message: string, error: unknown) => void;
    } = {},
  ) {}

  entryMac(entry: AuditEntry): string {
    return this.key.entryMac(entry);
  }

  append(entry: AuditEntry): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ entry, resolve, reject });
      this.kick();
    });
  }

  seal(): void {
    this.sealWanted = true;
    this.kick();
  }

  /** Resolves when everything appended or committed before the call is sealed (tests, shutdown). */
  async flush(): Promise<void> {
    this.seal();
    while (this.draining) await this.draining;
  }

  private kick(): void {
    if (!this.draining) this.draining = this.drain().finally(() => (this.draining = null));
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0 || this.sealWanted) {
      this.sealWanted = false;
      const batch = this.queue.splice(0, MAX_BATCH);
      try {
        await this.writeAndSeal(batch.map((q) => q.entry));
        for (const item of batch) item.resolve();
      } catch (error) {
        if (batch.length <= 1) {
          this.hooks.onError?.('audit append failed', error);
          for (const item of batch) item.reject(error);
          continue;
        }
        // One bad neighbour must not cost the others their records.
        for (const item of batch) {
          try {
            await this.writeAndSeal([item.entry]);
            item.resolve();
          } catch (single) {
            this.hooks.onError?.('audit append failed', single);
            item.reject(single);
          }
        }
      }
    }
  }

  private async writeAndSeal(entries: readonly AuditEntry[]): Promise<void> {
    const sealed = await this.store.write(async (tx) => {
      for (const entry of entries) await tx.audit.append(entry, this.key.entryMac(entry));
      const records: AuditRecord[] = [];
      for (;;) {
        const more = await sealPending(tx, this.key).catch((error: unknown) => {
          // Entries stay written (pending) even when they cannot be linked now.
          if (error instanceof AuditKeyMismatchError) this.hooks.onError?.('audit seal refused', error);
          else throw error;
          return [];
        });
        records.push(...more);
        if (more.length < SEAL_BATCH) return records;
      }
    });
    if (sealed.length > 0) this.hooks.onSealed?.(sealed);
  }
}

export async function tailAudit(store: Store, count: number): Promise<AuditRecord[]> {
  return store.read(async (tx) =>
    tx.audit.records(Math.max(0, ((await tx.audit.head())?.seq ?? 0) - count), count),
  );
}
