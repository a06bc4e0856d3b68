import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { LineLimit, oversizeError } from '../adapters/mcp/stdio-line-limit.js';
import { sweep } from '../app/sweep.js';
import type { Logger } from '../adapters/log/json-logger.js';
import { createHoldfastServer } from '../adapters/mcp/server-factory.js';
import type { ServerConfig } from './config.js';
import { buildRuntime, describeDatabase, toolContext } from './compose.js';
import { seedIfEmpty } from './seed.js';

/** Serves one stdio connection; stdout carries protocol only, logs go to stderr. */
export async function runStdioServer(config: ServerConfig, logger: Logger): Promise<void> {
  const runtime = await buildRuntime(config, logger, { createAuditKey: true });
  const { deps } = runtime;
  await runtime.audit.flush();
  if (config.seed) await seedIfEmpty(deps, config.tenantId);
  const ctx = toolContext(runtime, config, logger, 'stdio');
  const sweeper = setInterval(() => {
    runtime.audit.seal();
    void sweep(deps).catch((e: unknown) => logger.error('sweep failed', { error: String(e) }));
  }, config.sweepIntervalMs);
  sweeper.unref();
  // Oversize lines are answered with an error and skipped; the connection stays up.
  const input = process.stdin.pipe(
    new LineLimit(config.maxBodyBytes, (head) => {
      logger.warn('stdio request too large', { maxBytes: config.maxBodyBytes });
      process.stdout.write(oversizeError(head, config.maxBodyBytes));
    }),
  );
  serveStdio(() => createHoldfastServer(ctx), {
    legacy: config.legacy === 'reject' ? 'reject' : 'serve',
    transport: new StdioServerTransport(input, process.stdout),
    onerror: (error) => logger.warn('stdio transport error', { error: error.message }),
  });
  process.stdin.once('end', () => {
    clearInterval(sweeper);
    void runtime.close();
  });
  logger.info('holdfast serving on stdio', { database: describeDatabase(config.databasePath) });
}
