import { randomBytes } from 'node:crypto';
import type { AppDeps } from '../../app/deps.js';
import { defaultAppConfig } from '../../app/deps.js';
import { StoreAuditLog } from '../../adapters/audit/index.js';
import { LazyReceiptSigner, RECEIPT_KEY_PURPOSE } from '../../adapters/receipts/index.js';
import type { AuditKey } from '../../adapters/audit/index.js';
import { CheckpointLog } from '../../adapters/audit/index.js';
import { loadMetrics, loadTracedStore, meteredPayments } from '../../adapters/telemetry/index.js';
import { operationalCounts } from '../../app/operational-counts.js';
import type { HoldfastMetrics } from '../../adapters/telemetry/index.js';
import type { OpenedStore } from '../../adapters/storage/index.js';
import { openStore as openEngine } from '../../adapters/storage/index.js';
import type { Store } from '../../ports/store/index.js';
import { cliDatabaseArgs } from '../config/database-url.js';
import { loadPgNotifySlotCache, MemorySlotCache } from '../../adapters/cache/index.js';
import { loadOffsetFileClock, systemClock } from '../../adapters/clock/index.js';
import type { Clock } from '../../ports/clock.js';
import { jcsDigest } from '../../adapters/ids/index.js';
import { KeyedDigest } from '../../adapters/ids/index.js';
import { KeyedPageTokens } from '../../adapters/ids/index.js';
import { randomIds } from '../../adapters/ids/index.js';
import type { Logger } from '../../adapters/log/index.js';
import type { ProfileSettings } from '../../adapters/mcp/index.js';
import { loadHttpPayments, noPayments, SimulatedPayments } from '../../adapters/payment/index.js';
import { nodeCredentials } from '../../adapters/ids/index.js';
import { webAuthnCeremonies } from '../../adapters/ids/index.js';
import { FlexibleRateLimits } from '../../adapters/limits/index.js';
import type { SlotCache } from '../../ports/slot-cache.js';
import type { ServerConfig } from '../config/config.js';
import { CREATING_COMMANDS } from '../config/config.js';
import { loadAuditKey } from './audit-key-file.js';
import { CalendarCache } from '../../app/calendars/calendar-cache.js';
import type { Links } from '../../adapters/mcp/index.js';
import { linksFor, ResourceBus } from '../../adapters/mcp/index.js';

export interface Runtime {
  /** Seals what is pending, then releases connections and listeners. */
  close(): Promise<void>;
  readonly deps: AppDeps;
  readonly store: Store;
  readonly simulator: SimulatedPayments;
  /** PostgreSQL: the pool and schema instances share (the waitlist's announcements cross them); SQLite: null. */
  readonly shared: OpenedStore['shared'];
  /** Resource changes agents listen to (subscriptions/listen); the waitlist matcher announces offers here. */
  readonly resources: ResourceBus;
  readonly audit: StoreAuditLog;
  readonly auditKey: AuditKey;
  /** HMAC key for MRTR request state. */
  readonly stateKey: string;
  /** Where people act on what agents are told (approval page, CLI line, payment page). */
  readonly links: Links;
  /** Where this process's pages are reachable by a person. */
  readonly publicBaseUrl: string;
  /** Which tool contracts this server offers, and which of their tools are off. */
  readonly profile: ProfileSettings;
  /** Prometheus metrics, for the processes that serve /metrics (`holdfast serve`). */
  readonly metrics: HoldfastMetrics | null;
}

export interface RuntimeOptions {
  /** Where this process was reached once bound (http://127.0.0.1:4110, http://[::1]:4110), for approval links. */
  readonly boundOrigin?: string;
  /** serve and stdio create the audit key on first start; operator commands only read it. */
  readonly createAuditKey?: boolean;
  /** serve measures (GET /metrics); stdio and operator commands do not. */
  readonly metrics?: boolean;
}

export { describeDatabase, isPostgresUrl } from '../config/database-url.js';

/** serve and stdio run until stopped; every other command does one thing and exits. */
const isServer = (config: ServerConfig) => config.command === 'serve' || config.command === 'stdio';

/**
 * SQLite by default; PostgreSQL when the database is a postgres:// URL. Only serve, stdio and
 * db migrate may create a database; every other command refuses a missing one.
 */
export function openStore(config: ServerConfig, logger: Logger): Promise<OpenedStore> {
  return openEngine(config.database, {
    create: CREATING_COMMANDS.has(config.command),
    longRunning: isServer(config),
    maxConnections: config.pgPoolSize,
    queryTimeoutMs: config.pgQueryTimeoutMs,
    warn: (message, fields) => logger.warn(message, fields),
  });
}

/** Development: time moved by a file (imported only when configured). */
async function devClockFrom(path: string, logger: Logger | null): Promise<Clock> {
  const { offsetFileClock } = await loadOffsetFileClock();
  logger?.warn('the clock is the real time plus the milliseconds in a file (--dev-clock, development)', {
    path,
  });
  return offsetFileClock(path);
}

/** Who wants to know that a tenant's free time may have changed (the waitlist matcher). */
const freeTimeListeners = new Set<(tenantId: string) => void>();

/** Calls `listener` after any write that may free time, on this instance or another; returns the way to stop. */
export function onFreeTimeChange(listener: (tenantId: string) => void): () => void {
  freeTimeListeners.add(listener);
  return () => void freeTimeListeners.delete(listener);
}

/** Several instances on PostgreSQL tell each other about writes; one SQLite process needs no bus. */
async function slotCacheFor(
  opened: OpenedStore,
  config: ServerConfig,
  logger: Logger,
): Promise<SlotCache & { close?: () => Promise<void> }> {
  const local = new MemorySlotCache(config.slotCacheMaxAgeMs, undefined, (tenantId) => {
    for (const listener of freeTimeListeners) listener(tenantId);
  });
  if (!opened.shared) return local;
  const { PgNotifySlotCache } = await loadPgNotifySlotCache();
  const { pool, connectionString, schema } = opened.shared;
  return PgNotifySlotCache.start(local, pool, connectionString, schema, logger);
}

export async function buildRuntime(
  config: ServerConfig,
  logger: Logger,
  options: RuntimeOptions = {},
): Promise<Runtime> {
  const opened = await openStore(config, logger);
  const { store } = opened;
  let auditKey: AuditKey;
  try {
    auditKey = loadAuditKey(config, options.createAuditKey ?? false, logger);
  } catch (error) {
    await store.close();
    throw error;
  }
  const slotCache = await slotCacheFor(opened, config, logger);
  const simulator = new SimulatedPayments(store, config.tenantId);
  // A command's links (setup links, feed addresses) point where the installation's server said it
  // serves people, unless --public-url says otherwise.
  const recorded =
    config.publicBaseUrl ??
    options.boundOrigin ??
    (await store.read((tx) => tx.tenants.publicUrl()).catch(() => null));
  const publicBaseUrl = recorded ?? `http://127.0.0.1:${config.port}`;
  // Servers trace their store transactions; a one-off command has no span to hang them on.
  const traced = isServer(config) ? new (await loadTracedStore()).TracedStore(store, opened.engine) : store;
  // The gauges read the database at scrape time, through the same (traced) store.
  const metrics = options.metrics
    ? new (await loadMetrics()).HoldfastMetrics(() => operationalCounts({ ...deps, store: traced }))
    : null;
  const payments =
    config.payments === 'http'
      ? await httpPayments(config, logger)
      : config.payments === 'none'
        ? noPayments
        : simulator;
  const checkpoints = new CheckpointLog(auditKey, logger, config.checkpointEvery);
  const audit = new StoreAuditLog(store, auditKey, {
    onSealed: (records) => checkpoints.sealed(records),
    onError: (message, error) => logger.error(message, { error: String(error) }),
  });
  const deps: AppDeps = {
    store: traced,
    clock: config.devClock
      ? await devClockFrom(config.devClock, isServer(config) ? logger : null)
      : systemClock,
    ids: randomIds,
    digest: jcsDigest,
    requestDigest: new KeyedDigest(auditKey.derive('request')),
    pageTokens: new KeyedPageTokens(auditKey.derive('approval-page')),
    payments: metrics ? meteredPayments(payments, metrics) : payments,
    // Writes invalidate at once (on every instance); the age bound covers holds lapsing meanwhile.
    slotCache,
    calendarCache: new CalendarCache(),
    credentials: nodeCredentials,
    webAuthn: webAuthnCeremonies,
    rateLimits: opened.shared
      ? FlexibleRateLimits.postgres(opened.shared.pool, opened.shared.schema)
      : FlexibleRateLimits.memory(),
    receipts: new LazyReceiptSigner(store, systemClock, auditKey.derive(RECEIPT_KEY_PURPOSE), publicBaseUrl),
    flushAudit: () => audit.flush(),
    config: {
      ...defaultAppConfig,
      holdTtlMs: config.holdTtlMs,
      maxCalendarsPerTenant: config.maxCalendarsPerTenant,
      maxOpenApprovalsPerTenant: config.maxOpenApprovalsPerTenant,
    },
  };
  return {
    async close() {
      await audit.flush().catch(() => undefined);
      await slotCache.close?.();
      await store.close();
    },
    deps,
    store,
    simulator,
    audit,
    shared: opened.shared,
    resources: new ResourceBus((error) =>
      logger.warn('a resource listener failed', { error: String(error) }),
    ),
    auditKey,
    // One key per process unless configured: MRTR rounds must come back to a process that knows it.
    stateKey: config.stateKey ?? randomBytes(32).toString('base64url'),
    metrics,
    publicBaseUrl,
    profile: {
      profile: config.profile,
      disabledTools: config.disabledTools,
      toolMode: config.toolMode,
      maxBodyBytes: config.maxBodyBytes,
      counterOffers: config.counterOffers,
    },
    links: linksFor({
      publicBaseUrl,
      paymentUrlBase: config.paymentUrlBase ?? `${publicBaseUrl.replace(/\/+$/, '')}/pay/`,
      cliDatabaseArgs: cliDatabaseArgs(config),
    }),
  };
}

/** The provider's adapter and the outbound guard load only when payments go over HTTP. */
async function httpPayments(config: ServerConfig, logger: Logger) {
  const [{ HttpPayments }, { outboundFetch }] = await Promise.all([
    loadHttpPayments(),
    import('../../adapters/net/index.js'),
  ]);
  return new HttpPayments(
    config.paymentQueryBaseUrl!,
    outboundFetch({ allowPrivate: config.allowPrivateUpstreams }),
    undefined,
    logger,
  );
}
