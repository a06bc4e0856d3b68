import type { AuditRecord } from '../../ports/audit.js';
import type { Logger } from '../log/json-logger.js';
import type { AuditKey } from './audit-key.js';
import { makeCheckpoint } from './checkpoint.js';

/**
 * Writes a checkpoint line to the server log every `every.records` sealed records, and at
 * the first seal after `every.ms` has passed. Shipped off the machine with the logs, these
 * lines anchor the chain for `holdfast audit verify --checkpoint LOGFILE`.
 */
export class CheckpointLog {
  private sinceLast = 0;
  private lastAt = Date.now();

  constructor(
    private readonly key: AuditKey,
    private readonly logger: Logger,
    private readonly every: { readonly records: number; readonly ms: number },
  ) {}

  sealed(records: readonly AuditRecord[]): void {
    const head = records.at(-1);
    if (!head) return;
    this.sinceLast += records.length;
    const now = Date.now();
    if (this.sinceLast < this.every.records && now - this.lastAt < this.every.ms) return;
    this.sinceLast = 0;
    this.lastAt = now;
    const checkpoint = makeCheckpoint(this.key, head, new Date(now).toISOString());
    // Written at once: a checkpoint must not wait in a buffer a crash would lose.
    this.logger.info('audit checkpoint', { checkpoint }, { now: true });
  }
}
