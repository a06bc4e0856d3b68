import { serve as serveNode } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { sweep } from '../app/sweep.js';
import { createHttpApp } from '../adapters/http/http-app.js';
import { isLoopbackAddress, loopbackHosts } from '../adapters/http/request-guards.js';
import type { Logger } from '../adapters/log/json-logger.js';
import { createHoldfastServer, SERVER_VERSION } from '../adapters/mcp/server-factory.js';
import type { ServerConfig } from './config.js';
import { buildDeps, localOperator, toolContext } from './compose.js';
import { seedIfEmpty } from './seed.js';

export class StartupError extends Error {}

export async function runHttpServer(config: ServerConfig, logger: Logger): Promise<() => Promise<void>> {
  if (!isLoopbackAddress(config.host)) {
    throw new StartupError(
      `Refusing to bind ${config.host}: Holdfast has no authentication configured, so it only listens on loopback ` +
        '(127.0.0.1, ::1). Bind 127.0.0.1 and put an authenticating proxy in front, or wait for OAuth support.',
    );
  }
  const deps = buildDeps(config);
  if (config.seed) {
    const created = await seedIfEmpty(deps, localOperator(config.tenantId));
    if (created > 0) logger.info('seeded demo calendars', { tenantId: config.tenantId, created });
  }
  const ctx = toolContext(deps, config, logger, 'http');
  const app = createHttpApp({
    factory: () => createHoldfastServer(ctx),
    allowedHosts: loopbackHosts(config.port, config.allowedHosts),
    legacy: config.legacy,
    maxBodyBytes: config.maxBodyBytes,
    logger,
    version: SERVER_VERSION,
    health: () =>
      deps.store.read(async (tx) => (await tx.listCalendars(config.tenantId), true)).catch(() => false),
  });
  const sweeper = setInterval(() => {
    sweep(deps)
      .then((r) => r.expired > 0 && logger.info('expired lapsed holds', r))
      .catch((e: unknown) => logger.error('sweep failed', { error: String(e) }));
  }, config.sweepIntervalMs);
  sweeper.unref();
  const server = await new Promise<ReturnType<typeof serveNode>>((resolve, reject) => {
    const s = serveNode({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolve(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  logger.info('holdfast listening', {
    url: `http://${config.host}:${port}/mcp`,
    database: config.databasePath,
    legacy: config.legacy,
  });
  return async () => {
    clearInterval(sweeper);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await app.close();
    await deps.store.close();
  };
}
