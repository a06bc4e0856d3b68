import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Logger } from '../../adapters/log/index.js';
import { LineLimit, loadMcpServer, oversizeError, SERVER_VERSION } from '../../adapters/mcp/index.js';
import type { ServerConfig } from '../config/config.js';
import type { Runtime } from './compose.js';
import { buildRuntime, describeDatabase } from './compose.js';
import { toolContext } from './tool-context.js';
import { localConnection, tenantToolMode } from '../../app/identity/tokens.js';
import { addPerson, newSetupLink } from '../../app/identity/people.js';
import { setupUrl } from './first-owner.js';
import type { Principal } from '../../domain/identity/principal.js';
import { isPasswordOf } from '../../app/identity/sessions.js';
import { StartupError } from './startup-error.js';
import { listen } from './listen.js';
import { sealLegacyCustomers } from '../../app/booking/erase-customers.js';
import { startBackgroundWorkers } from './background-workers.js';

/**
 * The person the local connection acts for: `--as EMAIL`, or the tenant's only person. Nobody
 * else can reach this process (it speaks only to the host that started it), so that choice is
 * the operator's; approvals still need that person signed in on the page (policy draft). On a
 * tenant with nobody yet (a desktop bundle's first start), `--as` names its owner, who gets a
 * one-time link to set the password the approval page asks for.
 */
async function stdioPrincipal(runtime: Runtime, config: ServerConfig, logger: Logger): Promise<Principal> {
  const { deps } = runtime;
  const policy = config.writePolicy ?? 'draft';
  const people = await deps.store.read((tx) => tx.people.listPeople(config.tenantId));
  if (config.as !== null && people.length === 0) {
    const owner = await addPerson(deps, { tenantId: config.tenantId, email: config.as, role: 'owner' });
    const { secret } = await newSetupLink(deps, config.tenantId, owner.id);
    logger.info('created the owner named by --as; the link sets their password for the approval page', {
      email: owner.email,
      setupUrl: setupUrl(runtime, secret),
    });
  }
  const chosen = config.as !== null ? config.as : people.length === 1 ? people[0]!.email : null;
  if (chosen !== null) {
    const principal = await localConnection(deps, chosen, policy);
    if (config.profile === 'deltat') await requireDeltatPassword(runtime, config, principal);
    return principal;
  }
  throw new StartupError(
    people.length === 0
      ? 'holdfast stdio acts for a person, and there is none yet: --as EMAIL makes that person the owner'
      : `holdfast stdio acts for one person: say which with --as EMAIL (${people.length} people in tenant ${config.tenantId})`,
  );
}

/**
 * deltat's rule for its stdio server: DELTAT_PASSWORD is the credential, required, with no
 * default; here it is the password of the person the server acts for (set on their setup link).
 */
async function requireDeltatPassword(runtime: Runtime, config: ServerConfig, principal: Principal) {
  if (config.deltatPassword === null || config.deltatPassword === '')
    throw new StartupError(
      'DELTAT_PASSWORD is required with --profile deltat, and has no default: set it to the password of the person this server acts for (--as).',
    );
  if (!(await isPasswordOf(runtime.deps, principal.subject, config.deltatPassword)))
    throw new StartupError('DELTAT_PASSWORD is not the password of the person this server acts for.');
}

/**
 * holdfast stdio: one MCP connection on stdin/stdout (protocol only; logs go to stderr), and
 * the approval page on a loopback port of its own, so a desktop host's user can open
 * approveUrl with nothing else running.
 */
export async function runStdioServer(config: ServerConfig, logger: Logger): Promise<void> {
  // The MCP server loads while the database opens: the host waits for the first answer.
  const mcpServer = loadMcpServer();
  const pages = await listen('127.0.0.1', config.consolePort, {
    headersTimeoutMs: config.headersTimeoutMs,
    bodyTimeoutMs: config.bodyTimeoutMs,
  });
  const runtime = await buildRuntime(config, logger, { boundOrigin: pages.origin, createAuditKey: true });
  const { deps } = runtime;
  await runtime.audit.flush();
  await sealLegacyCustomers(deps);
  const principal = await stdioPrincipal(runtime, config, logger).catch(async (error: unknown) => {
    await pages.close();
    await runtime.close();
    throw error;
  });
  // After the person is known: `--as` may have just made the owner a seeded store's bookings belong to.
  if (config.seed) await (await import('./seed.js')).seedIfEmpty(deps, config.tenantId, config.profile);
  const ctx = toolContext(runtime, logger, 'stdio', principal);
  // Oversize lines are answered with an error and skipped; the connection stays up.
  const input = process.stdin.pipe(
    new LineLimit(config.maxBodyBytes, (line) => {
      logger.warn('stdio request too large', { maxBytes: config.maxBodyBytes });
      process.stdout.write(oversizeError(line, config.maxBodyBytes));
    }),
  );
  const { createHoldfastServer } = await mcpServer;
  const surface = (await tenantToolMode(runtime.deps, principal.tenantId)) ?? config.toolMode;
  serveStdio(
    () => {
      const server = createHoldfastServer(ctx, 'connection', surface, principal.profile ?? config.profile);
      // This connection's listen streams hear what the waitlist matcher announces.
      runtime.resources.subscribe((event) => {
        if (event.kind === 'resource_updated') void server.server.sendResourceUpdated({ uri: event.uri });
      });
      return server;
    },
    {
      legacy: config.legacy === 'reject' ? 'reject' : 'serve',
      transport: new StdioServerTransport(input, process.stdout),
      onerror: (error) => logger.warn('stdio transport error', { error: error.message }),
    },
  );
  // The approval page loads after the connection is served; a request before then waits for it.
  const app = approvalPages(runtime, config, logger, pages.port);
  app.catch((error: unknown) =>
    logger.error('the approval pages could not start', {
      error: error instanceof Error ? error.message : String(error),
    }),
  );
  pages.serve(async (request, env) => (await app).fetch(request, env));
  const stopWorkers = startBackgroundWorkers(runtime, config, logger);
  process.stdin.once('end', () => {
    void stopWorkers()
      .then(() => pages.close())
      .then(() => runtime.close());
  });
  logger.info('holdfast serving on stdio', {
    database: describeDatabase(config.database),
    approvals: `${runtime.publicBaseUrl.replace(/\/+$/, '')}/console/approvals`,
  });
}

/** The pages a person of this stdio connection uses (approvals, the console), on the loopback port. */
async function approvalPages(runtime: Runtime, config: ServerConfig, logger: Logger, port: number) {
  const [{ createHttpApp, serverNames, loadPages }, { mountHumanPages }, { loginProviderFor }] =
    await Promise.all([
      import('../../adapters/http/index.js'),
      import('./human-pages.js'),
      import('./login-provider.js'),
    ]);
  const pages = await loadPages();
  const provider = loginProviderFor(runtime, config, logger);
  const warn = (message: string, fields: Record<string, unknown>) => logger.warn(message, fields);
  return createHttpApp({
    names: serverNames(port, {
      publicUrl: config.publicBaseUrl,
      extraHosts: config.allowedHosts,
      extraOrigins: config.allowedOrigins,
    }),
    logger,
    version: SERVER_VERSION,
    health: async () => true,
    bodyTimeoutMs: config.bodyTimeoutMs,
    receiptKeys: () => runtime.deps.receipts.publicKeys(),
    mountPages: (hono) => mountHumanPages(hono, pages, runtime, config, { provider, warn }),
  });
}
