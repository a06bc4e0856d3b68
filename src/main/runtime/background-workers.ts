import type { Logger } from '../../adapters/log/index.js';
import type { ServerConfig } from '../config/config.js';
import type { Runtime } from './compose.js';

/**
 * The server's background work: the sweeper (expired holds, overdue payments), webhook
 * delivery and feed refreshes. Loaded and started after the server answers its first request;
 * resolves with the function that stops all three.
 */
export async function startBackgroundWorkers(
  runtime: Runtime,
  config: ServerConfig,
  logger: Logger,
): Promise<() => Promise<void>> {
  const [{ startSweeper }, { startWebhookWorker }, { startFeedRefresher }, { icsBusyReader }] =
    await Promise.all([
      import('./sweeper.js'),
      import('./webhook-worker.js'),
      import('./feed-refresher.js'),
      import('../../adapters/feeds/index.js'),
    ]);
  const stopSweeper = startSweeper(runtime, config.sweepIntervalMs, logger);
  const stopWebhooks = startWebhookWorker(runtime, config, logger);
  const reader = icsBusyReader({ allowPrivate: config.allowPrivateFeeds });
  const stopFeeds = startFeedRefresher(runtime, reader, config.sweepIntervalMs, logger);
  return async () => {
    stopSweeper();
    stopFeeds();
    await stopWebhooks();
  };
}
