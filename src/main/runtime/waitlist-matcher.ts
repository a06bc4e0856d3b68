import { randomUUID } from 'node:crypto';
import { loadPgNotifyResources } from '../../adapters/cache/index.js';
import type { Logger } from '../../adapters/log/index.js';
import { waitlistUri } from '../../adapters/mcp/index.js';
import { matchWaitlist } from '../../app/booking/waitlist.js';
import type { Runtime } from './compose.js';
import { onFreeTimeChange } from './compose.js';

/** A pass at least this often: offers that lapsed, windows that passed, time freed while no write was seen. */
const INTERVAL_MS = 2_000;

/**
 * Offers freed time to waiting entries: a pass over each tenant's queue every two seconds and,
 * while any entry is open, after every write that may free time (here or, on PostgreSQL, on
 * another instance). Offers are
 * announced to listening agents on this instance and (PostgreSQL) every other. Returns stop.
 */
export async function startWaitlistMatcher(runtime: Runtime, logger: Logger): Promise<() => Promise<void>> {
  const { deps } = runtime;
  const matcher = `matcher_${randomUUID()}`;
  const local = (uri: string) => runtime.resources.updated(uri);
  const bridge = runtime.shared
    ? await (
        await loadPgNotifyResources()
      ).PgNotifyResources.start(
        runtime.shared.pool,
        runtime.shared.connectionString,
        runtime.shared.schema,
        local,
        logger,
      )
    : null;
  const announce = bridge ? (uri: string) => bridge.announce(uri) : local;
  let running: Promise<void> | null = null;
  let again = false;
  // Writes kick a pass only while some entry is open (seen by the last pass): with none, a hold
  // costs nothing more than it did before waitlists existed.
  let open = false;
  const pass = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        const tenants = await deps.store.read((tx) => tx.waitlist.tenantsWaiting());
        open = tenants.length > 0;
        for (const tenantId of tenants) {
          const moved = await matchWaitlist(deps, tenantId, matcher, (entry) => {
            announce(waitlistUri(entry.id));
            logger.info('waitlist entry moved', { entry: entry.id, status: entry.status });
          });
          if (moved > 0) again = true;
        }
      } while (again);
    })()
      .catch((error: unknown) => logger.error('waitlist pass failed', { error: String(error) }))
      .finally(() => {
        running = null;
      });
  };
  const stopListening = onFreeTimeChange(() => {
    if (open) setImmediate(pass);
  });
  const timer = setInterval(pass, INTERVAL_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    stopListening();
    await running;
    await bridge?.close();
  };
}
