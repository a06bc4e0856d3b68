import type { AppDeps } from './deps.js';

/** Frees lapsed holds and forgets idempotency records past their retention. */
export async function sweep(
  deps: Pick<AppDeps, 'store' | 'clock'>,
): Promise<{ expired: number; purged: number }> {
  const now = deps.clock.now();
  return deps.store.write(async (tx) => ({
    expired: await tx.expireLapsedHolds(now),
    purged: await tx.purgeIdempotency(now),
  }));
}
