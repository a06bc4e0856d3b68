import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { sweep } from '../app/sweep.js';
import type { Logger } from '../adapters/log/json-logger.js';
import { createHoldfastServer } from '../adapters/mcp/server-factory.js';
import type { ServerConfig } from './config.js';
import { buildRuntime, describeDatabase, localOperator, toolContext } from './compose.js';
import { seedIfEmpty } from './seed.js';

/** Serves one stdio connection; stdout carries protocol only, logs go to stderr. */
export async function runStdioServer(config: ServerConfig, logger: Logger): Promise<void> {
  const runtime = await buildRuntime(config, logger);
  const { deps } = runtime;
  if (config.seed) await seedIfEmpty(deps, localOperator(config.tenantId, 'direct'));
  const ctx = toolContext(runtime, config, logger, 'stdio');
  const sweeper = setInterval(() => void sweep(deps).catch(() => undefined), config.sweepIntervalMs);
  sweeper.unref();
  serveStdio(() => createHoldfastServer(ctx), {
    legacy: config.legacy === 'reject' ? 'reject' : 'serve',
    onerror: (error) => logger.warn('stdio transport error', { error: error.message }),
  });
  process.stdin.once('end', () => {
    clearInterval(sweeper);
    void runtime.close();
  });
  logger.info('holdfast serving on stdio', { database: describeDatabase(config.databasePath) });
}
