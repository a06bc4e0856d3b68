import { randomUUID } from 'node:crypto';
import type { Logger } from '../../adapters/log/index.js';
import type { BusyFeedReader } from '../../ports/busy-feed.js';
import { refreshDue } from '../../app/feeds/subscriptions.js';
import type { Runtime } from './compose.js';

/**
 * Every interval: refresh the feed subscriptions that are due. Leases in the database keep
 * several instances on one PostgreSQL off the same subscription; a pass still running skips
 * the next tick. Failures are recorded on the subscription and never stop the server. Returns stop.
 */
export function startFeedRefresher(
  runtime: Runtime,
  reader: BusyFeedReader,
  intervalMs: number,
  logger: Logger,
): () => void {
  const owner = `instance:${randomUUID()}`;
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    refreshDue(runtime.deps, reader, owner)
      .then((outcomes) => {
        for (const o of outcomes)
          if (o.ok) logger.info('feed refreshed', { subscription: o.id, busy: o.busy });
          else logger.warn('feed refresh failed', { subscription: o.id, error: o.error });
      })
      .catch((e: unknown) => logger.error('feed refresh pass failed', { error: String(e) }))
      .finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
