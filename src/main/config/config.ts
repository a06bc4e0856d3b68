import type { ParseArgsConfig } from 'node:util';
import { parseArgs } from 'node:util';
import { mergePositionals, splitDashIds } from './argv-ids.js';
import type { WritePolicy } from '../../domain/calendar.js';
import type { ContractProfile } from '../../domain/identity/identity.js';
import { CONTRACT_PROFILES } from '../../domain/identity/identity.js';
import type { ExternalAuthConfig } from './external-auth-config.js';
import { readExternalAuth } from './external-auth-config.js';
import type { LoginProviderConfig } from './login-provider-config.js';
import { refusedUpstream } from './upstream-config.js';
import { readLoginProvider } from './login-provider-config.js';
import { UsageError } from './usage-error.js';
import { deltatTenant } from './deltat-config.js';
import { readAgentAccessEnv } from './agent-access-config.js';

export interface ServerConfig {
  /** serve | stdio | db | approvals | … ; 'help' and 'version' print and exit. */
  readonly command: string;
  readonly rest: readonly string[];
  /** The command whose help page was asked for (`holdfast approvals --help`). */
  readonly helpFor: string | null;
  /** A SQLite file path or a postgres:// URL (`--db`, `--database`). */
  readonly database: string;
  readonly host: string;
  readonly port: number;
  /** stdio: the loopback port of the approval page it serves (0: any free port). */
  readonly consolePort: number;
  readonly seed: boolean;
  readonly holdTtlMs: number;
  readonly legacy: 'stateless' | 'reject';
  /** How the servers write their log on stderr: JSON lines, or one readable line per event (auto: readable on a terminal). */
  readonly logFormat: 'auto' | 'pretty' | 'json';
  readonly allowedHosts: readonly string[];
  /** Browser Origins allowed beside the server's own (agent-access: MCP_ALLOWED_ORIGINS), exact. */
  readonly allowedOrigins: readonly string[];
  readonly tenantId: string;
  /** stdio: the email of the person the local connection acts for (`--as`). */
  readonly as: string | null;
  /** A TLS-terminating proxy forwards to this server (`--trust-proxy`): needed off loopback. */
  readonly trustProxy: boolean;
  /** Lifetime of OAuth access tokens (minutes, so a revoked grant never lives long). */
  readonly oauthAccessTokenTtlSeconds: number;
  /** Client ID Metadata Documents may be fetched from private and loopback addresses. */
  readonly oauthAllowPrivateClientMetadata: boolean;
  /** Calendar feeds may be fetched from private and loopback addresses, over http to loopback (tests). */
  readonly allowPrivateFeeds: boolean;
  /** External identity providers whose access tokens /mcp accepts (--auth-issuer …); null: none. */
  readonly externalAuth: ExternalAuthConfig | null;
  /** The OpenID Connect provider people may sign in to the pages through (--login-issuer …); null: none. */
  readonly loginProvider: LoginProviderConfig | null;
  /** The development payment form (`--dev`); never in production. */
  readonly dev: boolean;
  /** A file of milliseconds added to the time (`--dev-clock`): benchmarks move time; never in production. */
  readonly devClock: string | null;
  readonly maxBodyBytes: number;
  /** A request body must arrive within this (`--body-timeout`, seconds): a trickling client is cut. */
  readonly bodyTimeoutMs: number;
  /** A request's headers must arrive within this (`--headers-timeout`, seconds). */
  readonly headersTimeoutMs: number;
  /**
   * Which contract agents are served by (`--profile`; a tenant may choose another): Holdfast's
   * own tools (`standard`); `hotel-ops`, the reservation-operations contract's tools beside them;
   * or a source system as itself — `expert-booking` (its catalog of four tools, the timing
   * contract, 2026-07-28 clients only unless --timing-contract, --legacy say otherwise),
   * `bookings`, `deltat`, `agent-access` (docs/contracts.md).
   */
  readonly profile: ContractProfile;
  /** deltat's DELTAT_COUNTER_OFFER: 0 turns the alternatives of a refused time off (profile deltat). */
  readonly counterOffers: boolean;
  /**
   * deltat's DELTAT_PASSWORD (profile deltat, stdio): the password of the person the process acts
   * for; stdio refuses to start without it. Never logged, never stored.
   */
  readonly deltatPassword: string | null;
  /** `--timing-contract`: /mcp requests must say when they were sent; answers say when they came and left. */
  readonly timingContract: boolean;
  /** How agents see the tools (`--tools`): all listed, or the progressive catalog. */
  readonly toolMode: 'flat' | 'catalog';
  /** Contract tools switched off on this server (`--disable-tool NAME`, repeatable). */
  readonly disabledTools: readonly string[];
  readonly sweepIntervalMs: number;
  readonly slotCacheMaxAgeMs: number;
  /** Overrides the transport's default write policy (stdio: attested, HTTP: draft). */
  readonly writePolicy: WritePolicy | null;
  readonly payments: 'simulator' | 'http' | 'none';
  readonly paymentQueryBaseUrl: string | null;
  readonly publicBaseUrl: string | null;
  readonly paymentUrlBase: string | null;
  readonly production: boolean;
  /** HMAC key for MRTR request state; random per process when unset. */
  readonly stateKey: string | null;
  readonly json: boolean;
  readonly debug: boolean;
  /** The audit key itself (HOLDFAST_AUDIT_KEY); otherwise read from `auditKeyFile` or its default place. */
  readonly auditKey: string | null;
  readonly auditKeyFile: string | null;
  /** The server logs an audit checkpoint after this many sealed records, or this long. */
  readonly checkpointEvery: { readonly records: number; readonly ms: number };
  readonly maxCalendarsPerTenant: number;
  readonly maxOpenApprovalsPerTenant: number;
  /** `--allow-private-webhooks`: receivers on loopback and private addresses (and http to loopback), for tests. */
  readonly allowPrivateWebhooks: boolean;
  /** `--allow-private-upstreams`: identity and payment providers on this host or a private network. */
  readonly allowPrivateUpstreams: boolean;
  /** How long one webhook delivery may take (`--webhook-timeout`, seconds). */
  readonly webhookTimeoutMs: number;
  /** PostgreSQL: a statement not answered within this is given up, its connection dropped (`--pg-query-timeout`). */
  readonly pgQueryTimeoutMs: number;
  /** PostgreSQL: the most connections this instance holds (`--pg-pool-size`). */
  readonly pgPoolSize: number;
  /** Options of the operator commands (payments set, audit tail). */
  readonly options: {
    readonly amount?: string;
    readonly currency?: string;
    readonly lines?: string;
    /** audit verify --checkpoint FILE */
    readonly checkpoint?: string;
    /** receipts verify --jwks FILE_OR_URL: the published receipt keys to check against. */
    readonly jwks?: string;
    /** audit checkpoint --out FILE */
    readonly out?: string;
    /** audit verify --allow-unkeyed: accept the unkeyed records of a database older than keyed audit. */
    readonly allowUnkeyed?: boolean;
    /** oauth rotate-keys --purge-retired: retired signing keys go now (a key leaked). */
    readonly purgeRetired?: boolean;
    /** users reset-password --keep-tokens: the person's tokens and OAuth connections stay. */
    readonly keepTokens?: boolean;
    /** users add --role, --name; tokens create --name, --scopes, --expires (days). */
    readonly role?: string;
    readonly name?: string;
    readonly scopes?: string;
    readonly expires?: string;
    /** inbox import --provider, --channel: where imported mail says it came from. */
    readonly provider?: string;
    /** probe --token T: the bearer token the probe calls with. */
    readonly token?: string;
    /** tokens create --profile hotel-ops: the scopes that contract's tools need (the flag itself, not HOLDFAST_PROFILE). */
    readonly tokenProfile?: string;
    /** tenants set --tool-profile inherit|hotel-ops|standard */
    readonly toolProfile?: string;
    /** tenants set --tools inherit|flat|catalog */
    readonly tools?: string;
    readonly channel?: string;
    /** tenants add|set: limits. */
    readonly callsPerMinute?: string;
    readonly maxActiveHolds?: string;
    readonly maxHeldHours?: string;
    readonly maxHoldsPerConnection?: string;
    readonly maxOpenApprovalsPerPerson?: string;
    readonly approvalWindow?: string;
    readonly counterOffers?: string;
    /** tenants set --customer-retention DAYS|none */
    readonly customerRetention?: string;
    /** standing-rules grant: the rule's bounds, as the person typed them (checked by the command). */
    readonly rule?: { readonly [K in StandingRuleOption]?: string };
    /** webhooks add --events all|TYPE,… and --include-contact */
    readonly events?: string;
    readonly includeContact?: boolean;
    /** feeds subscribe --every 15m, caldav connect --every 1m */
    readonly every?: string;
    /** caldav connect: who signs in, the environment variable holding the password, whether events carry contact details. */
    readonly username?: string;
    readonly passwordEnv?: string;
    readonly shareContact?: boolean;
    /** caldav connect with OAuth 2.0: google or a token endpoint, the client, where its secret and the refresh token are. */
    readonly oauth?: string;
    readonly clientId?: string;
    readonly clientSecretEnv?: string;
    readonly refreshTokenEnv?: string;
  };
}

/**
 * Commands that may create a database; every other one refuses a missing one. 'embedded' is an
 * application's createHoldfast.
 */
export const CREATING_COMMANDS = new Set(['serve', 'stdio', 'db', 'embedded']);

function whole(value: string | undefined, name: string, fallback: number, range: [number, number]): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < range[0] || n > range[1])
    throw new UsageError(`--${name} must be a whole number from ${range[0]} to ${range[1]}, got "${value}"`);
  return n;
}

function oneOf<T extends string>(value: string, name: string, allowed: readonly T[]): T {
  if (!allowed.includes(value as T))
    throw new UsageError(`--${name} must be ${allowed.join(', ')}; got "${value}"`);
  return value as T;
}

const OPTIONS = {
  db: { type: 'string' },
  database: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  'console-port': { type: 'string' },
  'no-seed': { type: 'boolean' },
  'timing-contract': { type: 'boolean' },
  'body-timeout': { type: 'string' },
  'headers-timeout': { type: 'string' },
  'hold-ttl': { type: 'string' },
  legacy: { type: 'string' },
  'log-format': { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  tenant: { type: 'string' },
  as: { type: 'string' },
  'trust-proxy': { type: 'boolean' },
  'oauth-token-ttl': { type: 'string' },
  jwks: { type: 'string' },
  'oauth-allow-private-metadata': { type: 'boolean' },
  'allow-private-feeds': { type: 'boolean' },
  every: { type: 'string' },
  username: { type: 'string' },
  'password-env': { type: 'string' },
  'share-contact': { type: 'boolean' },
  oauth: { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret-env': { type: 'string' },
  'refresh-token-env': { type: 'string' },
  'auth-issuer': { type: 'string', multiple: true },
  'auth-jwks-url': { type: 'string' },
  'auth-audience': { type: 'string', multiple: true },
  'auth-person-claim': { type: 'string' },
  'auth-tenant-claim': { type: 'string' },
  'auth-scope-claim': { type: 'string' },
  'auth-algorithms': { type: 'string' },
  'auth-write-policy': { type: 'string' },
  'auth-jwks-cooldown': { type: 'string' },
  'login-issuer': { type: 'string' },
  'login-client-id': { type: 'string' },
  'login-name': { type: 'string' },
  dev: { type: 'boolean' },
  'dev-clock': { type: 'string' },
  role: { type: 'string' },
  name: { type: 'string' },
  scopes: { type: 'string' },
  expires: { type: 'string' },
  'calls-per-minute': { type: 'string' },
  'max-active-holds': { type: 'string' },
  'max-held-hours': { type: 'string' },
  'max-holds-per-connection': { type: 'string' },
  'max-open-approvals-per-person': { type: 'string' },
  'approval-window': { type: 'string' },
  'counter-offers': { type: 'string' },
  'customer-retention': { type: 'string' },
  actions: { type: 'string' },
  calendars: { type: 'string' },
  'max-per-booking': { type: 'string' },
  'max-per-day': { type: 'string' },
  weekdays: { type: 'string' },
  hours: { type: 'string' },
  'bookings-per-day': { type: 'string' },
  customers: { type: 'string' },
  connection: { type: 'string' },
  days: { type: 'string' },
  zone: { type: 'string' },
  'write-policy': { type: 'string' },
  payments: { type: 'string' },
  'public-url': { type: 'string' },
  'payment-url-base': { type: 'string' },
  production: { type: 'boolean' },
  json: { type: 'boolean' },
  amount: { type: 'string' },
  currency: { type: 'string' },
  lines: { type: 'string', short: 'n' },
  'audit-key-file': { type: 'string' },
  'max-calendars': { type: 'string' },
  'max-open-approvals': { type: 'string' },
  checkpoint: { type: 'string' },
  'allow-unkeyed': { type: 'boolean' },
  'purge-retired': { type: 'boolean' },
  'keep-tokens': { type: 'boolean' },
  out: { type: 'string' },
  'checkpoint-every': { type: 'string' },
  profile: { type: 'string' },
  'tool-profile': { type: 'string' },
  tools: { type: 'string' },
  'disable-tool': { type: 'string', multiple: true },
  'max-body-mb': { type: 'string' },
  provider: { type: 'string' },
  channel: { type: 'string' },
  token: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  debug: { type: 'boolean' },
  events: { type: 'string' },
  'include-contact': { type: 'boolean' },
  'allow-private-webhooks': { type: 'boolean' },
  'allow-private-upstreams': { type: 'boolean' },
  'webhook-timeout': { type: 'string' },
  'pg-pool-size': { type: 'string' },
  'pg-query-timeout': { type: 'string' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

type OptionName = keyof typeof OPTIONS;
type StandingRuleOption =
  | 'actions'
  | 'calendars'
  | 'maxPerBooking'
  | 'maxPerDay'
  | 'weekdays'
  | 'hours'
  | 'bookingsPerDay'
  | 'customers'
  | 'connection'
  | 'days'
  | 'zone';
/** Every option any command can take; each command's page declares which of them it does. */
export const OPTION_NAMES = Object.keys(OPTIONS) as readonly OptionName[];
/** Every command answers these, whatever it declares. */
const EVERYWHERE: readonly OptionName[] = ['help', 'version', 'debug'];

/** The command's options, as its help page declares them: any other is refused by name. */
export interface CommandOptions {
  readonly command: string;
  readonly options: readonly string[];
}

function parse(argv: readonly string[], declared?: CommandOptions) {
  const split = splitDashIds(
    argv,
    (name) => Object.hasOwn(OPTIONS, name) && OPTIONS[name as OptionName].type === 'string',
  );
  const accepted = declared
    ? Object.fromEntries(
        Object.entries(OPTIONS).filter(
          ([name]) => declared.options.includes(name) || EVERYWHERE.includes(name as OptionName),
        ),
      )
    : OPTIONS;
  try {
    const { values, tokens } = parseArgs({
      args: split.parseable,
      allowPositionals: true,
      strict: true,
      tokens: true,
      // Typed as every option: one the command does not declare is refused before it is read.
      options: accepted as typeof OPTIONS,
    });
    return { values, positionals: mergePositionals(split, tokens) };
  } catch (error) {
    // Node's parser words its errors for programmers; say the same thing plainly.
    const message = error instanceof Error ? error.message : String(error);
    const unknown = /Unknown option '([^']+)'/.exec(message)?.[1];
    if (unknown && declared && Object.hasOwn(OPTIONS, unknown.replace(/^--/, '')))
      throw new UsageError(
        `holdfast ${declared.command} takes no ${unknown} (see holdfast ${declared.command} --help)`,
      );
    if (unknown) throw new UsageError(`unknown option ${unknown} (see holdfast --help)`);
    const missing = /Option '([^']+)' argument (?:missing|is ambiguous)/.exec(message)?.[1];
    if (missing)
      throw new UsageError(`${missing.replace(/^-\w, /, '').replace(/ <value>$/, '')} needs a value`);
    throw new UsageError(message.split('\n')[0]!);
  }
}

function url(value: string | null, name: string): string | null {
  if (value === null) return null;
  try {
    const parsed = new URL(value);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('scheme');
    return value;
  } catch {
    throw new UsageError(`${name} must be an http(s) URL, got "${value}"`);
  }
}

/** What the command line asks for: `version` and `help` need no setting, so nothing else is read for them. */
export function readCommand(argv: readonly string[]): {
  readonly command: string;
  readonly helpFor: string | null;
} {
  const { values, positionals } = parse(argv);
  return commandOf(values, positionals);
}

function commandOf(
  values: { readonly version?: boolean; readonly help?: boolean },
  positionals: readonly string[],
): { command: string; helpFor: string | null } {
  const first = positionals[0];
  const command = values.version ? 'version' : values.help || first === 'help' ? 'help' : (first ?? 'serve');
  const helpFor = command === 'help' ? ((first === 'help' ? positionals[1] : first) ?? null) : null;
  return { command, helpFor };
}

/** A variable set to nothing (`HOLDFAST_DB=`) counts as unset, as a shell user means it. */
function setVariables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
}

/**
 * The only place that reads argv and the environment. `declared`: the options the command's
 * page lists (commands/<group>.help.ts); any other is refused by name. Precedence, highest first: the
 * command line, HOLDFAST_* variables, then the conventional PORT and DATABASE_URL. A generic
 * HOST (set by many shells) is never read.
 */
export function readConfig(
  argv: readonly string[],
  environment: NodeJS.ProcessEnv,
  declared?: CommandOptions,
): ServerConfig {
  const { values, positionals } = parse(argv, declared);
  const { command, helpFor } = commandOf(values, positionals);
  const env = setVariables(environment);
  const policy = values['write-policy'] ?? env.HOLDFAST_WRITE_POLICY ?? null;
  const writePolicy =
    policy === null
      ? null
      : oneOf(policy, 'write-policy', ['readonly', 'draft', 'attested', 'direct'] as const);
  const paymentQueryBaseUrl = url(
    env.HOLDFAST_PAYMENT_QUERY_BASE_URL ?? env.PAYMENT_QUERY_BASE_URL ?? null,
    'HOLDFAST_PAYMENT_QUERY_BASE_URL',
  );
  const production = values.production ?? (env.HOLDFAST_PRODUCTION === '1' || env.NODE_ENV === 'production');
  // In production nothing simulates a payment: without a provider a priced booking cannot confirm.
  const payments = oneOf(
    values.payments ?? (paymentQueryBaseUrl ? 'http' : production ? 'none' : 'simulator'),
    'payments',
    ['simulator', 'http', 'none'] as const,
  );
  if (payments === 'simulator' && production)
    throw new UsageError(
      '--payments simulator (development) cannot run in production: set HOLDFAST_PAYMENT_QUERY_BASE_URL (your provider) or --payments none',
    );
  if (payments === 'http' && !paymentQueryBaseUrl)
    throw new UsageError('--payments http needs HOLDFAST_PAYMENT_QUERY_BASE_URL (the provider’s base URL)');
  if (values.db !== undefined && values.database !== undefined)
    throw new UsageError('give either --db (SQLite) or --database (PostgreSQL), not both');
  const database =
    values.database ??
    values.db ??
    env.HOLDFAST_DATABASE_URL ??
    env.HOLDFAST_DB ??
    env.DATABASE_URL ??
    'data/holdfast.db';
  if (database.trim() === '') throw new UsageError('--db needs a path');
  const profile = oneOf(values.profile ?? env.HOLDFAST_PROFILE ?? 'standard', 'profile', CONTRACT_PROFILES);
  const expert = profile === 'expert-booking';
  const legacy = oneOf(values.legacy ?? (expert ? 'reject' : 'stateless'), 'legacy', [
    'stateless',
    'reject',
  ] as const);
  const logFormat = oneOf(values['log-format'] ?? env.HOLDFAST_LOG_FORMAT ?? 'auto', 'log-format', [
    'auto',
    'pretty',
    'json',
  ] as const);
  // `tenants set --tools` also takes `inherit`; it is checked there.
  const toolMode =
    command === 'tenants'
      ? 'flat'
      : oneOf(values.tools ?? env.HOLDFAST_TOOLS ?? (expert ? 'catalog' : 'flat'), 'tools', [
          'flat',
          'catalog',
        ] as const);
  const dev = values.dev ?? false;
  if (dev && production)
    throw new UsageError('--dev (the development payment form) cannot run in production');
  const devClock = values['dev-clock'] ?? env.HOLDFAST_DEV_CLOCK ?? null;
  if (devClock && production)
    throw new UsageError('--dev-clock (a clock moved by a file) cannot run in production');
  const publicUrl = url(values['public-url'] ?? env.HOLDFAST_PUBLIC_URL ?? null, '--public-url');
  // agent-access (seed 004) also reads its own names: MCP_PUBLIC_URL, MCP_WEB_URL, MCP_ALLOWED_ORIGINS.
  const agentAccess =
    profile === 'agent-access'
      ? readAgentAccessEnv(env, publicUrl, production)
      : { publicBaseUrl: publicUrl, allowedOrigins: [] };
  const config: ServerConfig = {
    command,
    rest: positionals.slice(1),
    helpFor,
    database,
    host: values.host ?? env.HOLDFAST_HOST ?? '127.0.0.1',
    port: whole(values.port ?? env.HOLDFAST_PORT ?? env.PORT, 'port', 3000, [0, 65535]),
    consolePort: whole(values['console-port'] ?? env.HOLDFAST_CONSOLE_PORT, 'console-port', 0, [0, 65535]),
    seed: !values['no-seed'],
    timingContract: values['timing-contract'] ?? (env.HOLDFAST_TIMING_CONTRACT === '1' || expert),
    holdTtlMs:
      whole(values['hold-ttl'] ?? env.HOLDFAST_HOLD_TTL_SECONDS, 'hold-ttl', 300, [1, 7 * 24 * 3600]) * 1000,
    legacy,
    logFormat,
    allowedHosts: values['allowed-host'] ?? [],
    allowedOrigins: agentAccess.allowedOrigins,
    // deltat: each database name is a tenant of its own (DELTAT_DATABASE; its default, public, is local).
    tenantId: values.tenant ?? (profile === 'deltat' ? deltatTenant(env) : undefined) ?? 'local',
    as: values.as ?? env.HOLDFAST_AS ?? null,
    trustProxy: values['trust-proxy'] ?? false,
    oauthAccessTokenTtlSeconds: whole(
      values['oauth-token-ttl'] ?? env.HOLDFAST_OAUTH_TOKEN_TTL_SECONDS,
      'oauth-token-ttl',
      600,
      [5, 3600],
    ),
    oauthAllowPrivateClientMetadata: values['oauth-allow-private-metadata'] ?? false,
    allowPrivateFeeds: values['allow-private-feeds'] ?? false,
    externalAuth: readExternalAuth(
      {
        'auth-issuer': values['auth-issuer'],
        'auth-jwks-url': values['auth-jwks-url'],
        'auth-audience': values['auth-audience'],
        'auth-person-claim': values['auth-person-claim'],
        'auth-tenant-claim': values['auth-tenant-claim'],
        'auth-scope-claim': values['auth-scope-claim'],
        'auth-algorithms': values['auth-algorithms'],
        'auth-write-policy': values['auth-write-policy'],
        'auth-jwks-cooldown': values['auth-jwks-cooldown'],
      },
      env,
    ),
    loginProvider: readLoginProvider(
      {
        'login-issuer': values['login-issuer'],
        'login-client-id': values['login-client-id'],
        'login-name': values['login-name'],
      },
      env,
    ),
    dev,
    devClock: devClock || null,
    profile,
    counterOffers: env.DELTAT_COUNTER_OFFER !== '0',
    deltatPassword: profile === 'deltat' ? (env.DELTAT_PASSWORD ?? null) : null,
    toolMode,
    disabledTools: values['disable-tool'] ?? [],
    // The contract allows 10 MB requests (a thread of mail as evidence); Holdfast's own tools need far less.
    maxBodyBytes:
      whole(
        values['max-body-mb'] ?? env.HOLDFAST_MAX_BODY_MB,
        'max-body-mb',
        profile === 'hotel-ops' ? 10 : 0,
        [0, 64],
      ) *
        1024 *
        1024 || 256 * 1024,
    bodyTimeoutMs:
      whole(values['body-timeout'] ?? env.HOLDFAST_BODY_TIMEOUT, 'body-timeout', 30, [1, 600]) * 1000,
    headersTimeoutMs:
      whole(values['headers-timeout'] ?? env.HOLDFAST_HEADERS_TIMEOUT, 'headers-timeout', 10, [1, 600]) *
      1000,
    sweepIntervalMs: 15_000,
    // expert-booking's free times are cached 5 s; Holdfast's own 2 s (every write drops them either way).
    slotCacheMaxAgeMs: expert ? 5_000 : 2_000,
    writePolicy,
    payments,
    paymentQueryBaseUrl,
    publicBaseUrl: agentAccess.publicBaseUrl,
    paymentUrlBase: url(
      values['payment-url-base'] ?? env.HOLDFAST_PAYMENT_URL_BASE ?? null,
      '--payment-url-base',
    ),
    production,
    stateKey: env.HOLDFAST_STATE_KEY ?? null,
    json: values.json ?? false,
    debug: values.debug ?? false,
    auditKey: env.HOLDFAST_AUDIT_KEY ?? null,
    auditKeyFile: values['audit-key-file'] ?? env.HOLDFAST_AUDIT_KEY_FILE ?? null,
    checkpointEvery: {
      records: whole(values['checkpoint-every'], 'checkpoint-every', 1000, [1, 10_000_000]),
      ms: 10 * 60_000,
    },
    maxCalendarsPerTenant: whole(values['max-calendars'], 'max-calendars', 1000, [1, 1_000_000]),
    maxOpenApprovalsPerTenant: whole(values['max-open-approvals'], 'max-open-approvals', 200, [1, 1_000_000]),
    allowPrivateWebhooks: values['allow-private-webhooks'] ?? false,
    allowPrivateUpstreams: values['allow-private-upstreams'] ?? env.HOLDFAST_ALLOW_PRIVATE_UPSTREAMS === '1',
    webhookTimeoutMs:
      whole(
        values['webhook-timeout'] ?? env.HOLDFAST_WEBHOOK_TIMEOUT_SECONDS,
        'webhook-timeout',
        10,
        [1, 30],
      ) * 1000,
    pgPoolSize: whole(values['pg-pool-size'] ?? env.HOLDFAST_PG_POOL_SIZE, 'pg-pool-size', 20, [1, 500]),
    pgQueryTimeoutMs:
      whole(values['pg-query-timeout'] ?? env.HOLDFAST_PG_QUERY_TIMEOUT, 'pg-query-timeout', 15, [1, 600]) *
      1000,
    options: {
      events: values.events,
      includeContact: values['include-contact'],
      amount: values.amount,
      currency: values.currency,
      lines: values.lines,
      checkpoint: values.checkpoint,
      jwks: values.jwks,
      out: values.out,
      allowUnkeyed: values['allow-unkeyed'],
      purgeRetired: values['purge-retired'],
      keepTokens: values['keep-tokens'],
      role: values.role,
      name: values.name,
      scopes: values.scopes,
      expires: values.expires,
      provider: values.provider,
      toolProfile: values['tool-profile'],
      tokenProfile: values.profile,
      token: values.token,
      tools: values.tools,
      channel: values.channel,
      callsPerMinute: values['calls-per-minute'],
      maxActiveHolds: values['max-active-holds'],
      maxHeldHours: values['max-held-hours'],
      maxHoldsPerConnection: values['max-holds-per-connection'],
      maxOpenApprovalsPerPerson: values['max-open-approvals-per-person'],
      approvalWindow: values['approval-window'],
      counterOffers: values['counter-offers'],
      customerRetention: values['customer-retention'],
      every: values.every,
      username: values.username,
      passwordEnv: values['password-env'],
      shareContact: values['share-contact'],
      oauth: values.oauth,
      clientId: values['client-id'],
      clientSecretEnv: values['client-secret-env'],
      refreshTokenEnv: values['refresh-token-env'],
      rule: {
        actions: values.actions,
        calendars: values.calendars,
        maxPerBooking: values['max-per-booking'],
        maxPerDay: values['max-per-day'],
        weekdays: values.weekdays,
        hours: values.hours,
        bookingsPerDay: values['bookings-per-day'],
        customers: values.customers,
        connection: values.connection,
        days: values.days,
        zone: values.zone,
      },
    },
  };
  const refused = config.allowPrivateUpstreams ? null : refusedUpstream(config);
  if (refused && command !== 'help' && command !== 'version') throw new UsageError(refused);
  return config;
}
