import { randomUUID } from 'node:crypto';
import type { Logger } from '../../adapters/log/index.js';
import { syncCaldavDue } from '../../app/calendar-sync/caldav-sync.js';
import type { CaldavKit } from '../../ports/caldav.js';
import { loadCaldavKit } from './caldav-kit.js';
import type { Runtime } from './compose.js';

/** How often the syncer looks for a due connection: one indexed read when none is. */
const TICK_MS = 5_000;

/**
 * Syncs CalDAV connections when due. Leases keep several instances on one PostgreSQL off the
 * same connection; a pass still running skips the next tick; failures are recorded on the
 * connection and never stop the server. The client loads at the first due connection. Returns stop.
 */
export function startCaldavSyncer(
  runtime: Runtime,
  allowPrivate: boolean,
  logger: Logger,
): () => Promise<void> {
  const owner = `instance:${randomUUID()}`;
  let kit: Promise<CaldavKit> | null = null;
  const loadKit = () => (kit ??= loadCaldavKit(runtime, allowPrivate));
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = syncCaldavDue(runtime.deps, loadKit, owner)
      .then((outcomes) => {
        for (const o of outcomes)
          if (o.ok) logger.info('caldav synced', { ...o });
          else logger.warn('caldav sync failed', { connection: o.id, error: o.error });
      })
      .catch((e: unknown) => logger.error('caldav sync pass failed', { error: String(e) }))
      .finally(() => (running = null));
  }, TICK_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
