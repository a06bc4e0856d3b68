import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { createHttpApp } from '../adapters/http/http-app.js';
import { serverNames } from '../adapters/http/request-guards.js';
import type { Logger } from '../adapters/log/json-logger.js';
import { createHoldfastServer, SERVER_VERSION } from '../adapters/mcp/server-factory.js';
import { LineLimit, oversizeError } from '../adapters/mcp/stdio-line-limit.js';
import type { ServerConfig } from './config.js';
import { buildRuntime, describeDatabase, toolContext } from './compose.js';
import { mountHumanPages } from './human-pages.js';
import { listen } from './listen.js';
import { seedIfEmpty } from './seed.js';
import { startSweeper } from './sweeper.js';

/**
 * holdfast stdio: one MCP connection on stdin/stdout (protocol only; logs go to stderr), and
 * the approval page on a loopback port of its own, so a desktop host's user can open
 * approveUrl with nothing else running.
 */
export async function runStdioServer(config: ServerConfig, logger: Logger): Promise<void> {
  const pages = await listen('127.0.0.1', config.consolePort);
  const runtime = await buildRuntime(config, logger, { boundOrigin: pages.origin, createAuditKey: true });
  const { deps } = runtime;
  await runtime.audit.flush();
  if (config.seed) await seedIfEmpty(deps, config.tenantId);
  const ctx = toolContext(runtime, config, logger, 'stdio');
  const app = createHttpApp({
    names: serverNames(pages.port, { publicUrl: config.publicBaseUrl, extraHosts: config.allowedHosts }),
    logger,
    version: SERVER_VERSION,
    health: async () => true,
    mountPages: (hono) => mountHumanPages(hono, runtime, config),
  });
  pages.serve(app.fetch);
  const stopSweeper = startSweeper(runtime, config.sweepIntervalMs, logger);
  // Oversize lines are answered with an error and skipped; the connection stays up.
  const input = process.stdin.pipe(
    new LineLimit(config.maxBodyBytes, (line) => {
      logger.warn('stdio request too large', { maxBytes: config.maxBodyBytes });
      process.stdout.write(oversizeError(line, config.maxBodyBytes));
    }),
  );
  serveStdio(() => createHoldfastServer(ctx), {
    legacy: config.legacy === 'reject' ? 'reject' : 'serve',
    transport: new StdioServerTransport(input, process.stdout),
    onerror: (error) => logger.warn('stdio transport error', { error: error.message }),
  });
  process.stdin.once('end', () => {
    stopSweeper();
    void pages.close().then(() => runtime.close());
  });
  logger.info('holdfast serving on stdio', {
    database: describeDatabase(config.database),
    approvals: `${runtime.publicBaseUrl.replace(/\/+$/, '')}/approvals/…`,
  });
}
