import { serve as serveNode } from '@hono/node-server';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { approvalForPage, decideByPageToken } from '../app/approvals.js';
import { sweep } from '../app/sweep.js';
import { mountApprovalPage } from '../adapters/http/approval-page.js';
import { createHttpApp } from '../adapters/http/http-app.js';
import { mountDevPaymentForm } from '../adapters/http/payment-form.js';
import { isLoopbackAddress, serverNames } from '../adapters/http/request-guards.js';
import type { Logger } from '../adapters/log/json-logger.js';
import { createHoldfastServer, SERVER_VERSION } from '../adapters/mcp/server-factory.js';
import type { ServerConfig } from './config.js';
import type { Runtime } from './compose.js';
import { buildRuntime, describeDatabase, toolContext } from './compose.js';
import { auditOperatorAction } from './operator-audit.js';
import { seedIfEmpty } from './seed.js';
import { StartupError } from './startup-error.js';

type FetchHandler = (request: Request) => Response | Promise<Response>;

/** Binds first (so `--port 0` knows its port for approval links), then serves the app. */
export async function runHttpServer(config: ServerConfig, logger: Logger): Promise<() => Promise<void>> {
  if (!isLoopbackAddress(config.host)) {
    throw new StartupError(
      `Refusing to bind ${config.host}: Holdfast has no authentication configured, so it only listens on loopback ` +
        '(127.0.0.1, ::1). Bind 127.0.0.1 and put an authenticating proxy in front, or wait for OAuth support.',
    );
  }
  let handle: FetchHandler = () => new Response('starting', { status: 503 });
  const server = await new Promise<ReturnType<typeof serveNode>>((resolve, reject) => {
    const s = serveNode(
      { fetch: (request) => handle(request), port: config.port, hostname: config.host },
      () => resolve(s),
    );
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const runtime = await buildRuntime(config, logger, { boundPort: port, createAuditKey: true });
  const { deps } = runtime;
  // Entries a crash left unlinked join the chain before anything new.
  await runtime.audit.flush();
  if (config.seed) {
    const created = await seedIfEmpty(deps, config.tenantId);
    if (created > 0) logger.info('seeded demo calendars', { tenantId: config.tenantId, created });
  }
  if (config.unsafeSkipOverlapPrecheck) {
    logger.warn(
      'UNSAFE: the application overlap check is off (reliability negative control); only the engine guards slots',
    );
  }
  const ctx = toolContext(runtime, config, logger, 'http');
  const app = createHttpApp({
    factory: () => createHoldfastServer(ctx),
    names: serverNames(port, { publicUrl: config.publicBaseUrl, extraHosts: config.allowedHosts }),
    legacy: config.legacy,
    maxBodyBytes: config.maxBodyBytes,
    logger,
    version: SERVER_VERSION,
    health: () =>
      deps.store.read(async (tx) => (await tx.countCalendars(config.tenantId), true)).catch(() => false),
    mountPages: (hono) => mountPages(hono, runtime, config),
  });
  handle = app.fetch;
  const sweeper = setInterval(() => {
    runtime.audit.seal();
    sweep(deps)
      .then((r) => {
        if (r.expired > 0 || r.payments.asked > 0) logger.info('swept', { ...r });
      })
      .catch((e: unknown) => logger.error('sweep failed', { error: String(e) }));
  }, config.sweepIntervalMs);
  sweeper.unref();
  logger.info('holdfast listening', {
    url: `http://${config.host}:${port}/mcp`,
    database: describeDatabase(config.databasePath),
    legacy: config.legacy,
    writePolicy: ctx.principal.writePolicy,
    payments: config.payments,
  });
  return async () => {
    clearInterval(sweeper);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await app.close();
    await runtime.close();
  };
}

function mountPages(
  hono: Parameters<NonNullable<Parameters<typeof createHttpApp>[0]['mountPages']>>[0],
  runtime: Runtime,
  config: ServerConfig,
) {
  const { deps } = runtime;
  const csrfKey = randomBytes(32).toString('base64url');
  mountApprovalPage(hono, {
    csrfKey,
    load: (token) => approvalForPage(deps, token),
    decide: async (token, decision) => {
      const decided = await decideByPageToken(deps, token, decision);
      await auditOperatorAction(runtime, {
        tool: 'approval_page',
        kind: 'approval',
        tenantId: decided.tenantId,
        transport: 'http',
        args: { approvalId: decided.id, decision },
      });
      return decided;
    },
  });
  if (!config.production && config.payments === 'simulator') {
    mountDevPaymentForm(hono, {
      csrfKey,
      describe: (id) =>
        deps.store.read(async (tx) => {
          const booking = await tx.getBooking(config.tenantId, id);
          return (
            booking && { amount: booking.price?.amount ?? null, currency: booking.price?.currency ?? null }
          );
        }),
      set: async (id, status) => {
        await runtime.simulator.set(id, status, deps.clock.now());
        await auditOperatorAction(runtime, {
          tool: 'dev_payment_form',
          kind: 'admin',
          tenantId: config.tenantId,
          transport: 'http',
          args: { bookingId: id, status },
        });
      },
    });
  }
}
