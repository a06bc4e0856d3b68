import type { Clock } from '../ports/clock.js';
import type { Digest } from '../ports/digest.js';
import type { Ids } from '../ports/ids.js';
import type { SlotCache } from '../ports/slot-cache.js';
import type { Store } from '../ports/store.js';
import type { WriteGate } from './write-gate.js';

export interface AppConfig {
  /** How long a hold keeps its time before it expires. */
  readonly holdTtlMs: number;
  /** How long an idempotency record replays. */
  readonly idempotencyTtlMs: number;
}

export const defaultAppConfig: AppConfig = {
  holdTtlMs: 5 * 60_000,
  idempotencyTtlMs: 24 * 60 * 60_000,
};

export interface AppDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly ids: Ids;
  readonly digest: Digest;
  readonly gate: WriteGate;
  readonly slotCache: SlotCache;
  readonly config: AppConfig;
}
