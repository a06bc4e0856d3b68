import type { AuditEntry, AuditLog, AuditRecord, PendingAuditEntry } from '../../ports/audit.js';
import type { Store } from '../../ports/store/index.js';
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
 * Links written entries into the chain, oldest first: each record gets the next sequence
 * number, its predecessor's hash and its own MAC. The records are computed from a read and
 * written in a short transaction that takes the chain lock and links them only if the head is
 * still the one they were computed on (another instance may have sealed meanwhile: then read
 * again). Returns the records it sealed.
 */
export async function sealPending(store: Store, key: AuditKey): Promise<AuditRecord[]> {
  for (let attempt = 1; ; attempt++) {
    const { pending, head } = await store.read(async (tx) => ({
      pending: await tx.audit.pending(SEAL_BATCH),
      head: await tx.audit.head(),
    }));
    if (pending.length === 0) return [];
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
    const linked = await store.write(async (tx) => {
      await tx.serialize('audit-chain');
      return tx.audit.link(
        records,
        pending.map((p) => p.pendingId),
        head,
      );
    });
    if (linked) return records;
    if (attempt >= 10)
      throw new Error('The audit chain kept moving while this process sealed; will retry later.');
  }
}

interface Queued {
  readonly entry: AuditEntry;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

const MAX_BATCH = 500;
const DEFAULT_SEAL_DELAY_MS = 20;

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
  private sealTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: Store,
    private readonly key: AuditKey,
    private readonly hooks: {
      readonly onSealed?: (records: readonly AuditRecord[]) => void;
      readonly onError?: (message: string, error: unknown) => void;
      /** How long a seal request waits for others to join it. */
      readonly sealDelayMs?: number;
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

  /**
   * Sealing waits a moment (sealDelayMs) so that one transaction links the entries of many
   * writes: the entries are durable already, only their place in the chain is pending.
   */
  seal(): void {
    this.sealWanted = true;
    if (this.sealTimer) return;
    const delay = this.hooks.sealDelayMs ?? DEFAULT_SEAL_DELAY_MS;
    if (delay === 0) return this.kick();
    this.sealTimer = setTimeout(() => {
      this.sealTimer = null;
      this.kick();
    }, delay);
    this.sealTimer.unref();
  }

  /** Resolves when everything appended or committed before the call is sealed (tests, shutdown). */
  async flush(): Promise<void> {
    if (this.sealTimer) clearTimeout(this.sealTimer);
    this.sealTimer = null;
    this.sealWanted = true;
    this.kick();
    while (this.draining) await this.draining;
  }

  private kick(): void {
    if (this.draining) return;
    this.draining = this.drain().finally(() => {
      this.draining = null;
      // Work that arrived after the loop's last check but before this ran would wait for the next call.
      if (this.queue.length > 0 || this.sealWanted) this.kick();
    });
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

  /** Appends in one step (durable once it returns), then seals; a failed seal loses nothing and is retried later. */
  private async writeAndSeal(entries: readonly AuditEntry[]): Promise<void> {
    if (entries.length > 0) {
      const signed = entries.map((entry) => ({ entry, mac: this.key.entryMac(entry) }));
      await this.store.writeOne((tx) => tx.audit.appendAll(signed));
    }
    try {
      for (;;) {
        const sealed = await sealPending(this.store, this.key);
        if (sealed.length > 0) this.hooks.onSealed?.(sealed);
        if (sealed.length < SEAL_BATCH) return;
      }
    } catch (error) {
      // Entries stay written (pending) even when they cannot be linked now.
      this.hooks.onError?.(
        error instanceof AuditKeyMismatchError ? 'audit seal refused' : 'audit seal failed',
        error,
      );
    }
  }
}

export async function tailAudit(store: Store, count: number): Promise<AuditRecord[]> {
  return store.read(async (tx) =>
    tx.audit.records(Math.max(0, ((await tx.audit.head())?.seq ?? 0) - count), count),
  );
}
