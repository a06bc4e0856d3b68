import { isLoopbackAddress, serverNames } from '../../adapters/http/index.js';
import { bearerGate } from '../../adapters/http/index.js';
import { createHttpApp, loadPages } from '../../adapters/http/index.js';
import type { Logger } from '../../adapters/log/index.js';
import { loadMcpServer, SERVER_VERSION } from '../../adapters/mcp/index.js';
import { hasPeople } from '../../app/identity/people.js';
import { authenticateToken, TOKEN_PREFIX } from '../../app/identity/tokens.js';
import { mountAuthorizationRoutes } from '../../adapters/http/index.js';
import { SCOPES } from '../../domain/identity/identity.js';
import { startOAuthServer } from './oauth-server.js';
import { startExternalIssuers } from './external-issuers.js';
import type { ServerConfig } from '../config/config.js';
import { buildRuntime, describeDatabase } from './compose.js';
import { mcpGateWiring } from './mcp-gate-record.js';
import { toolContext } from './tool-context.js';
import { firstOwnerLink } from './first-owner.js';
import { loginProviderFor } from './login-provider.js';
import { listen } from './listen.js';
import { StartupError } from './startup-error.js';
import { sealLegacyCustomers } from '../../app/booking/erase-customers.js';
import { startBackgroundWorkers } from './background-workers.js';
import { inboxIngestOptions } from './inbox-wiring.js';
import { mountInboxIngest } from '../../adapters/http/index.js';
import { mountCalendarFeeds, mountServerCard } from '../../adapters/http/index.js';
import { serverCardLoader } from './server-card-wiring.js';
import { renderIcs } from '../../adapters/feeds/index.js';
import { calendarFeed } from '../../app/feeds/feed-links.js';

/** Off loopback only behind TLS, said explicitly: a proxy terminates https and forwards here. */
function checkExposure(config: ServerConfig): void {
  if (isLoopbackAddress(config.host)) return;
  const https = config.publicBaseUrl?.startsWith('https://') ?? false;
  if (!https || !config.trustProxy)
    throw new StartupError(
      `Refusing to bind ${config.host}: plain HTTP off loopback would send tokens and passwords in the clear. ` +
        'Put a TLS-terminating proxy in front and say so with --public-url https://… and --trust-proxy, or bind 127.0.0.1.',
    );
}

/** holdfast serve: MCP over Streamable HTTP at /mcp, with the human pages. Resolves with a stop function. */
export async function runHttpServer(config: ServerConfig, logger: Logger): Promise<() => Promise<void>> {
  checkExposure(config);
  if (config.writePolicy !== null)
    throw new StartupError(
      'Over HTTP the write policy is each token’s, not the server’s: holdfast tokens create EMAIL --write-policy P ' +
        '(unset --write-policy / HOLDFAST_WRITE_POLICY for serve).',
    );
  const bound = await listen(config.host, config.port, {
    headersTimeoutMs: config.headersTimeoutMs,
    bodyTimeoutMs: config.bodyTimeoutMs,
  });
  const runtime = await buildRuntime(config, logger, {
    boundOrigin: bound.origin,
    createAuditKey: true,
    metrics: true,
  }).catch(async (error: unknown) => {
    await bound.close();
    throw error;
  });
  const { deps } = runtime;
  // Where people reach this server: the command line's links use it (users add, feeds create).
  await deps.store.write((tx) => tx.tenants.recordPublicUrl(runtime.publicBaseUrl, deps.clock.now()));
  const sealed = await sealLegacyCustomers(deps);
  if (sealed > 0) logger.info('sealed customer details stored by an older release', { bookings: sealed });
  // Entries a crash left unlinked join the chain before anything new.
  await runtime.audit.flush();
  if (config.seed) {
    const { seedIfEmpty } = await import('./seed.js');
    const created = await seedIfEmpty(deps, config.tenantId, config.profile);
    if (created > 0) logger.info('seeded demo calendars', { tenantId: config.tenantId, created });
  }
  if (!isLoopbackAddress(config.host) && !(await hasPeople(deps, config.tenantId))) {
    await bound.close();
    await runtime.close();
    throw new StartupError(
      `Refusing to bind ${config.host}: nobody can sign in yet. Create the first owner on loopback first ` +
        '(holdfast serve prints a setup link, or holdfast users add EMAIL --role owner).',
    );
  }
  const provider = loginProviderFor(runtime, config, logger);
  const warn = (message: string, fields: Record<string, unknown>) => logger.warn(message, fields);
  const oauth = await startOAuthServer(runtime, config, logger);
  const external = startExternalIssuers(runtime, config, logger, oauth);
  const ctx = toolContext(runtime, logger, 'http');
  const { pooledServerFactory } = await loadMcpServer();
  const app = createHttpApp({
    mcp: {
      factory: pooledServerFactory(ctx),
      events: runtime.resources,
      authenticate: bearerGate({
        resource: oauth.resource,
        resourceMetadataUrl: oauth.resourceMetadataUrl,
        authenticate: async (secret) => {
          if (secret.startsWith(TOKEN_PREFIX)) {
            const found = await authenticateToken(deps, secret);
            return (
              found && {
                principal: found.principal,
                toolMode: found.toolMode,
                clientId: found.token.id,
                expiresAt: found.token.expiresAt,
              }
            );
          }
          // Routed by the token's own (unverified) iss: each verifier then checks it in full.
          const issuer = external?.issuerOf(secret);
          if (external && issuer) return external.authenticate(secret, issuer);
          return oauth.authenticate(secret);
        },
      }),
      legacy: config.legacy,
      maxBodyBytes: config.maxBodyBytes,
      bodyTimeoutMs: config.bodyTimeoutMs,
      contractCodes: config.profile === 'hotel-ops',
      ...(config.timingContract ? { timingContract: () => deps.clock.now() } : {}),
      gate: mcpGateWiring(runtime, ctx, logger, config.tenantId),
      trustProxy: config.trustProxy,
    },
    names: serverNames(bound.port, {
      publicUrl: config.publicBaseUrl,
      extraHosts: config.allowedHosts,
      extraOrigins: config.allowedOrigins,
    }),
    trustProxy: config.trustProxy,
    bodyTimeoutMs: config.bodyTimeoutMs,
    logger,
    version: SERVER_VERSION,
    ...(runtime.metrics
      ? {
          metrics: {
            registry: runtime.metrics.registry,
            operatorTenant: config.tenantId,
            trustProxy: config.trustProxy,
          },
        }
      : {}),
    receiptKeys: () => deps.receipts.publicKeys(),
    health: () =>
      deps.store.read(async (tx) => (await tx.calendars.count(config.tenantId), true)).catch(() => false),
    mountBeforeForms: (hono) => {
      mountAuthorizationRoutes(hono, {
        endpoints: oauth.endpoints,
        issuer: oauth.issuer,
        resource: oauth.resource,
        scopes: SCOPES,
        trustProxy: config.trustProxy,
        bodyDeadlineMs: config.bodyTimeoutMs,
      });
      mountInboxIngest(hono, inboxIngestOptions(runtime, config));
      mountServerCard(hono, serverCardLoader(ctx, config, oauth.resource));
      mountCalendarFeeds(hono, {
        render: async (secret) => {
          const feed = await calendarFeed(deps, secret);
          return feed && renderIcs(feed, deps.clock.now());
        },
      });
    },
    // The pages load with the first request for one; the sign-in provider is checked now.
    loadPages: async () => {
      const [pages, { mountHumanPages }] = await Promise.all([loadPages(), import('./human-pages.js')]);
      return (hono) => mountHumanPages(hono, pages, runtime, config, { provider, oauth, warn });
    },
  });
  bound.serve(app.fetch);
  const stopWorkers = startBackgroundWorkers(runtime, config, logger);
  logger.info('holdfast listening', {
    url: `${bound.origin}/mcp`,
    approvals: `${runtime.publicBaseUrl.replace(/\/+$/, '')}/console/approvals`,
    database: describeDatabase(config.database),
    legacy: config.legacy,
    payments: config.payments,
    devPaymentForm: config.dev,
  });
  await firstOwnerLink(runtime, config);
  return async () => {
    await stopWorkers();
    await bound.close();
    await app.close();
    await runtime.close();
  };
}
