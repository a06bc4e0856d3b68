import type { AuditEntry, AuditLog, CallEnd, EffectAudit, SignedAuditEntry } from '../../ports/audit.js';
import type { StoreTx } from '../../ports/store/index.js';

/** Codes that mean a call was stopped by policy, not by bad input: the trail keeps the reason. */
const BLOCKING = /^(APPROVAL_|PAYMENT_|FORBIDDEN|QUOTA_)/;

export type EntryBase = Omit<AuditEntry, 'at' | 'outcome' | 'errorCode' | 'blockedReason' | 'durationMs'>;

/**
 * The one audit record of one tool call. A write use case puts it into the transaction that
 * commits its effect (so a crash cannot keep the effect and lose the record); every other
 * call gets it appended after it answered. Exactly one of the two happens.
 */
export class CallAudit implements EffectAudit {
  private written = false;
  private madeIds: Readonly<Record<string, string>> | null = null;

  constructor(
    private readonly base: EntryBase,
    private readonly log: AuditLog,
    private readonly now: () => number,
    private readonly started: number = performance.now(),
  ) {}

  get operationId(): string {
    return this.base.operationId;
  }

  async recordIn(tx: StoreTx, end?: CallEnd): Promise<void> {
    const { entry, mac } = this.signed(end);
    await tx.audit.append(entry, mac);
    tx.afterCommit(() => this.committed());
  }

  signed(end?: CallEnd): SignedAuditEntry {
    const entry = this.entry(end);
    return { entry, mac: this.log.entryMac(entry) };
  }

  committed(): void {
    this.written = true;
  }

  /** After the answer: append the record unless the effect's transaction already committed it. */
  finish(end?: CallEnd): Promise<void> {
    if (this.written) {
      this.log.seal();
      return Promise.resolve();
    }
    return this.log.append(this.entry(end));
  }

  made(ids: Readonly<Record<string, string>> | null): void {
    this.madeIds = ids;
  }

  /** The arguments' preview, plus `made` when the call created something (spliced: the preview is JSON text of an object). */
  private preview(): string {
    if (!this.madeIds) return this.base.preview;
    const made = `"made":${JSON.stringify(this.madeIds)}}`;
    return this.base.preview === '{}' ? `{${made}` : `${this.base.preview.slice(0, -1)},${made}`;
  }

  private entry(end: CallEnd | undefined): AuditEntry {
    return {
      ...this.base,
      preview: this.preview(),
      at: this.now(),
      outcome: end?.outcome ?? 'ok',
      errorCode: end?.outcome === 'error' ? end.code : null,
      blockedReason:
        end?.outcome === 'input_required'
          ? 'waiting for the user to approve'
          : end && BLOCKING.test(end.code)
            ? end.message
            : null,
      durationMs: Math.round((performance.now() - this.started) * 10) / 10,
    };
  }
}
