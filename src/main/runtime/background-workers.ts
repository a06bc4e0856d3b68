import type { Logger } from '../../adapters/log/index.js';
import type { ServerConfig } from '../config/config.js';
import type { Runtime } from './compose.js';

/**
 * The server's background work: the sweeper (expired holds, overdue payments), webhook
 * delivery, feed refreshes, the waitlist's offers and CalDAV sync, loaded and started after the server answers its first request.
 * Returns the function that stops them all (waiting for them to have started); a failure to
 * load them is logged.
 */
export function startBackgroundWorkers(
  runtime: Runtime,
  config: ServerConfig,
  logger: Logger,
): () => Promise<void> {
  const started = Promise.all([
    import('./sweeper.js'),
    import('./webhook-worker.js'),
    import('./feed-refresher.js'),
    import('../../adapters/feeds/index.js'),
    import('./waitlist-matcher.js'),
    import('./caldav-syncer.js'),
  ]).then(
    async ([
      { startSweeper },
      { startWebhookWorker },
      { startFeedRefresher },
      { icsBusyReader },
      { startWaitlistMatcher },
      { startCaldavSyncer },
    ]) => {
      const stopSweeper = startSweeper(runtime, config.sweepIntervalMs, logger);
      const stopWebhooks = startWebhookWorker(runtime, config, logger);
      const reader = icsBusyReader({ allowPrivate: config.allowPrivateFeeds });
      const stopFeeds = startFeedRefresher(runtime, reader, config.sweepIntervalMs, logger);
      const stopMatcher = await startWaitlistMatcher(runtime, logger);
      const stopCaldav = startCaldavSyncer(runtime, config.allowPrivateFeeds, logger);
      return async () => {
        stopSweeper();
        stopFeeds();
        await stopMatcher();
        await stopCaldav();
        await stopWebhooks();
      };
    },
    (error: unknown) => {
      logger.error('the background workers could not start', { error: String(error) });
      return async () => undefined;
    },
  );
  return async () => (await started)();
}
