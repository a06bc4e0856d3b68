import type { AuditHead } from '../../ports/audit.js';
import type { AuditChainCheck, AuditChainStatus } from '../../ports/audit-chain-status.js';
import type { Store } from '../../ports/store/index.js';
import { QUARANTINE } from './audit-chain.js';
import type { AuditKey } from './audit-key.js';
import type { ChainPosition } from './audit-verify.js';
import { CHAIN_START, nextPosition, recordFault } from './audit-verify.js';
import { makeCheckpoint } from './checkpoint.js';

export interface ChainWatchOptions {
  readonly now: () => number;
  /** How long a page waits for the walk before answering with how far it got. */
  readonly budgetMs?: number;
  readonly pageSize?: number;
}

/**
 * The console's view of the chain, verified incrementally: the first look walks the whole chain
 * (in the background once the page's time budget is spent), later looks verify only records
 * sealed since, with the same per-record check as `holdfast audit verify`. Each look also
 * re-reads the last record it verified, so a chain cut back or rewritten under it is caught;
 * older records are not re-read (the page says so). A break is kept until the process restarts.
 */
export class ChainWatch implements AuditChainCheck {
  /** How far the walk under way has verified. */
  private at: ChainPosition = CHAIN_START;
  private head: AuditHead | null = null;
  private headAt: number | null = null;
  /** What the last walk that reached the chain's head found, and when it got there. */
  private reached: { head: AuditHead | null; headAt: number | null; checkedAt: number } | null = null;
  private broken: { seq: number; reason: string } | null = null;
  private failed = false;
  private walking: Promise<void> | null = null;
  private readonly since: number;

  constructor(
    private readonly store: Store,
    private readonly key: AuditKey,
    private readonly options: ChainWatchOptions,
  ) {
    this.since = options.now();
  }

  async status(): Promise<AuditChainStatus> {
    this.walking ??= this.walk().finally(() => (this.walking = null));
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<void>(
      (resolve) => (timer = setTimeout(resolve, this.options.budgetMs ?? 300)),
    );
    await Promise.race([this.walking, budget]);
    clearTimeout(timer);
    return this.snapshot();
  }

  /** A walk still under way is reported by the last one that reached the head, once there was one. */
  private snapshot(): AuditChainStatus {
    const reached = this.reached;
    const progress = { through: this.at.seq - 1, throughAt: this.headAt, since: this.since };
    if (this.broken)
      return { ...progress, checkedAt: reached?.checkedAt ?? null, state: 'broken', broken: this.broken };
    if (!reached) return { ...progress, checkedAt: null, state: this.failed ? 'unavailable' : 'checking' };
    const base = {
      through: reached.head?.seq ?? 0,
      throughAt: reached.headAt,
      checkedAt: reached.checkedAt,
      since: this.since,
    };
    if (this.failed) return { ...base, state: 'unavailable' };
    if (reached.head === null) return { ...base, state: 'empty' };
    const at = new Date(reached.checkedAt).toISOString();
    return {
      ...base,
      state: 'verified',
      checkpoint: JSON.stringify(makeCheckpoint(this.key, reached.head, at)),
    };
  }

  private async walk(): Promise<void> {
    if (this.broken) return;
    const pageSize = this.options.pageSize ?? 1000;
    try {
      this.failed = false;
      if (!(await this.lastStillThere())) return;
      for (;;) {
        const page = await this.store.read((tx) => tx.audit.records(this.at.seq - 1, pageSize));
        for (const record of page) {
          const fault =
            recordFault(record, this.at, this.key, false) ??
            (record.tool === QUARANTINE
              ? 'a pending entry was forged or edited in the database before sealing; it was quarantined'
              : null);
          if (fault !== null) {
            this.broken = { seq: this.at.seq, reason: fault };
            return;
          }
          this.at = nextPosition(this.at, record);
          this.head = {
            seq: record.seq,
            hash: record.hash,
            macVersion: record.macVersion,
            keyId: record.keyId,
          };
          this.headAt = record.at;
        }
        if (page.length < pageSize) break;
      }
      this.reached = { head: this.head, headAt: this.headAt, checkedAt: this.options.now() };
    } catch {
      // The page says the check could not run; the next look tries again from where it stood.
      this.failed = true;
    }
  }

  /** Whether the record verified last is still there, unchanged (true before anything was verified). */
  private async lastStillThere(): Promise<boolean> {
    const head = this.head;
    if (head === null) return true;
    const [last] = await this.store.read((tx) => tx.audit.records(head.seq - 1, 1));
    if (last?.seq === head.seq && last.hash === head.hash) return true;
    this.broken = {
      seq: head.seq,
      reason: `record ${head.seq}, verified earlier, is gone or changed: the chain was cut back or rewritten`,
    };
    return false;
  }
}
