import { isLoopbackAddress, serverNames } from '../adapters/http/request-guards.js';
import { createHttpApp } from '../adapters/http/http-app.js';
import type { Logger } from '../adapters/log/json-logger.js';
import { pooledServerFactory, SERVER_VERSION } from '../adapters/mcp/server-factory.js';
import type { ServerConfig } from './config.js';
import { buildRuntime, describeDatabase, toolContext } from './compose.js';
import { mountHumanPages } from './human-pages.js';
import { listen } from './listen.js';
import { seedIfEmpty } from './seed.js';
import { StartupError } from './startup-error.js';
import { startSweeper } from './sweeper.js';

/** holdfast serve: MCP over Streamable HTTP at /mcp, with the human pages. Resolves with a stop function. */
export async function runHttpServer(config: ServerConfig, logger: Logger): Promise<() => Promise<void>> {
  if (!isLoopbackAddress(config.host)) {
    throw new StartupError(
      `Refusing to bind ${config.host}: Holdfast has no authentication configured, so it only listens on loopback ` +
        '(127.0.0.1, ::1). Bind 127.0.0.1 and put an authenticating proxy in front, or wait for OAuth support.',
    );
  }
  const bound = await listen(config.host, config.port);
  const runtime = await buildRuntime(config, logger, {
    boundOrigin: bound.origin,
    createAuditKey: true,
  }).catch(async (error: unknown) => {
    await bound.close();
    throw error;
  });
  const { deps } = runtime;
  // Entries a crash left unlinked join the chain before anything new.
  await runtime.audit.flush();
  if (config.seed) {
    const created = await seedIfEmpty(deps, config.tenantId);
    if (created > 0) logger.info('seeded demo calendars', { tenantId: config.tenantId, created });
  }
  const ctx = toolContext(runtime, config, logger, 'http');
  const app = createHttpApp({
    mcp: {
      factory: pooledServerFactory(ctx),
      legacy: config.legacy,
      maxBodyBytes: config.maxBodyBytes,
    },
    names: serverNames(bound.port, { publicUrl: config.publicBaseUrl, extraHosts: config.allowedHosts }),
    logger,
    version: SERVER_VERSION,
    health: () =>
      deps.store.read(async (tx) => (await tx.calendars.count(config.tenantId), true)).catch(() => false),
    mountPages: (hono) => mountHumanPages(hono, runtime, config),
  });
  bound.serve(app.fetch);
  const stopSweeper = startSweeper(runtime, config.sweepIntervalMs, logger);
  logger.info('holdfast listening', {
    url: `${bound.origin}/mcp`,
    approvals: `${runtime.publicBaseUrl.replace(/\/+$/, '')}/approvals/…`,
    database: describeDatabase(config.database),
    legacy: config.legacy,
    writePolicy: ctx.principal.writePolicy,
    payments: config.payments,
  });
  return async () => {
    stopSweeper();
    await bound.close();
    await app.close();
    await runtime.close();
  };
}
