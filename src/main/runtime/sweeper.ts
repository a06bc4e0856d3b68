import { sweep } from '../../app/booking/sweep.js';
import type { Logger } from '../../adapters/log/index.js';
import type { Runtime } from './compose.js';

/** Every interval: link pending audit entries, expire lapsed holds, follow up late payments. Returns stop. */
export function startSweeper(runtime: Runtime, intervalMs: number, logger: Logger): () => void {
  const timer = setInterval(() => {
    runtime.audit.seal();
    sweep(runtime.deps)
      .then((r) => {
        if (r.expired > 0 || r.payments.asked > 0 || r.customersErased > 0) logger.info('swept', { ...r });
      })
      .catch((e: unknown) => logger.error('sweep failed', { error: String(e) }));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
