import { parseArgs } from 'node:util';
import type { WritePolicy } from '../domain/calendar.js';

/** A mistake in the command line: reported as one clear line, exit code 2. */
export class UsageError extends Error {}

export interface ServerConfig {
  readonly command: string;
  readonly rest: readonly string[];
  readonly databasePath: string;
  readonly host: string;
  readonly port: number;
  readonly seed: boolean;
  readonly holdTtlMs: number;
  readonly legacy: 'stateless' | 'reject';
  readonly allowedHosts: readonly string[];
  readonly tenantId: string;
  /** Who the local operator is in bookings, approvals and the audit trail. */
  readonly subject: string;
  readonly maxBodyBytes: number;
  readonly sweepIntervalMs: number;
  readonly slotCacheMaxAgeMs: number;
  /** Overrides the transport's default write policy (stdio: attested, HTTP: draft). */
  readonly writePolicy: WritePolicy | null;
  readonly payments: 'simulator' | 'http';
  readonly paymentQueryBaseUrl: string | null;
  readonly publicBaseUrl: string | null;
  readonly paymentUrlBase: string | null;
  readonly production: boolean;
  /** HMAC key for MRTR request state; random per process when unset. */
  readonly stateKey: string | null;
  readonly json: boolean;
  /** The audit key itself (HOLDFAST_AUDIT_KEY); otherwise read from `auditKeyFile` or its default place. */
  readonly auditKey: string | null;
  readonly auditKeyFile: string | null;
  /** The server logs an audit checkpoint after this many sealed records, or this long. */
  readonly checkpointEvery: { readonly records: number; readonly ms: number };
  readonly maxCalendarsPerTenant: number;
  readonly maxOpenApprovalsPerTenant: number;
  /** HOLDFAST_UNSAFE_SKIP_OVERLAP_PRECHECK=1: the reliability suite's negative control, never for real use. */
  readonly unsafeSkipOverlapPrecheck: boolean;
  /** Options of the operator commands (payments set, audit tail). */
  readonly options: {
    readonly amount?: string;
    readonly currency?: string;
    readonly lines?: string;
    /** audit verify --checkpoint FILE */
    readonly checkpoint?: string;
    /** audit checkpoint --out FILE */
    readonly out?: string;
  };
}

export const usage = `Usage: holdfast <command> [options]

Commands:
  serve            Streamable HTTP on http://127.0.0.1:3000/mcp (default)
  stdio            MCP over stdin/stdout for local hosts
  db migrate       Create or upgrade the database schema
  sweep            Expire lapsed holds and purge old idempotency records once
  approvals list | show ID | approve ID | deny ID
  payments set BOOKING_ID PAID|FAILED|CLOSED|PENDING [--amount A --currency C]   (simulator)
  audit verify [--checkpoint FILE] | checkpoint [--out FILE] | tail [-n N] [--json]
  reconciliation   follow up lapsed priced holds' payments, then list bookings paid after their hold lapsed

Options:
  --db PATH             SQLite file (env HOLDFAST_DB, default ./data/holdfast.db)
  --database URL        postgres://... to run on PostgreSQL (env DATABASE_URL; ?schema=NAME picks a schema)
  --host ADDR           bind address (env HOST, default 127.0.0.1; loopback only until auth exists)
  --port N              HTTP port (env PORT, default 3000)
  --no-seed             do not create the demo calendars on an empty database
  --hold-ttl SECONDS    how long a hold lasts (env HOLDFAST_HOLD_TTL_SECONDS, default 300)
  --legacy MODE         stateless (default) serves 2025-era clients too; reject serves 2026-07-28 only
  --allowed-host HOST   extra Host header value to accept (repeatable)
  --tenant ID           tenant of the local operator (default local)
  --principal NAME      name of the local operator (default local-operator)
  --write-policy P      readonly | draft | attested | direct (env HOLDFAST_WRITE_POLICY;
                        default attested over stdio, draft over HTTP)
  --payments KIND       simulator (default) | http (needs PAYMENT_QUERY_BASE_URL)
  --public-url URL      where people reach this server, for approval links (env HOLDFAST_PUBLIC_URL)
  --payment-url-base U  payment page base for priced bookings (env HOLDFAST_PAYMENT_URL_BASE)
  --production          production mode: no development payment form (also NODE_ENV=production)
  --audit-key-file PATH the audit HMAC key (env HOLDFAST_AUDIT_KEY_FILE, or the key itself in
                        HOLDFAST_AUDIT_KEY; default audit.key beside the SQLite file, ./data/audit.key
                        for PostgreSQL; created on first start with mode 600)
  --checkpoint-every N  log an audit checkpoint after N sealed records (default 1000; and every 10 minutes)
  --max-calendars N     calendars per tenant (default 1000)
  --max-open-approvals N  approvals waiting for a person per tenant (default 200)
`;

function positiveInt(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || (n === 0 && name !== 'port'))
    throw new UsageError(`--${name} must be a positive whole number, got "${value}"`);
  return n;
}

/** The only place that reads argv and the environment. */
export function readConfig(argv: readonly string[], env: NodeJS.ProcessEnv): ServerConfig {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      db: { type: 'string' },
      database: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      'no-seed': { type: 'boolean' },
      'hold-ttl': { type: 'string' },
      legacy: { type: 'string' },
      'allowed-host': { type: 'string', multiple: true },
      tenant: { type: 'string' },
      principal: { type: 'string' },
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
      out: { type: 'string' },
      'checkpoint-every': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const legacy = values.legacy ?? 'stateless';
  if (legacy !== 'stateless' && legacy !== 'reject')
    throw new UsageError('--legacy must be stateless or reject');
  const writePolicy = values['write-policy'] ?? env.HOLDFAST_WRITE_POLICY ?? null;
  if (writePolicy !== null && !['readonly', 'draft', 'attested', 'direct'].includes(writePolicy)) {
    throw new UsageError('--write-policy must be readonly, draft, attested or direct');
  }
  const paymentQueryBaseUrl = env.PAYMENT_QUERY_BASE_URL ?? null;
  const payments = values.payments ?? (paymentQueryBaseUrl ? 'http' : 'simulator');
  if (payments !== 'simulator' && payments !== 'http')
    throw new UsageError('--payments must be simulator or http');
  if (payments === 'http' && !paymentQueryBaseUrl)
    throw new UsageError('--payments http needs PAYMENT_QUERY_BASE_URL');
  return {
    command: values.help ? 'help' : (positionals[0] ?? 'serve'),
    rest: positionals.slice(1),
    databasePath: values.database ?? values.db ?? env.DATABASE_URL ?? env.HOLDFAST_DB ?? 'data/holdfast.db',
    host: values.host ?? env.HOST ?? '127.0.0.1',
    port: positiveInt(values.port ?? env.PORT, 'port', 3000),
    seed: !values['no-seed'],
    holdTtlMs: positiveInt(values['hold-ttl'] ?? env.HOLDFAST_HOLD_TTL_SECONDS, 'hold-ttl', 300) * 1000,
    legacy,
    allowedHosts: values['allowed-host'] ?? [],
    tenantId: values.tenant ?? 'local',
    subject: values.principal ?? 'local-operator',
    maxBodyBytes: 256 * 1024,
    sweepIntervalMs: 15_000,
    slotCacheMaxAgeMs: 2_000,
    writePolicy: writePolicy as WritePolicy | null,
    payments,
    paymentQueryBaseUrl,
    publicBaseUrl: values['public-url'] ?? env.HOLDFAST_PUBLIC_URL ?? null,
    paymentUrlBase: values['payment-url-base'] ?? env.HOLDFAST_PAYMENT_URL_BASE ?? null,
    production: values.production ?? env.NODE_ENV === 'production',
    stateKey: env.HOLDFAST_STATE_KEY ?? null,
    json: values.json ?? false,
    auditKey: env.HOLDFAST_AUDIT_KEY ?? null,
    auditKeyFile: values['audit-key-file'] ?? env.HOLDFAST_AUDIT_KEY_FILE ?? null,
    checkpointEvery: {
      records: positiveInt(values['checkpoint-every'], 'checkpoint-every', 1000),
      ms: 10 * 60_000,
    },
    maxCalendarsPerTenant: positiveInt(values['max-calendars'], 'max-calendars', 1000),
    maxOpenApprovalsPerTenant: positiveInt(values['max-open-approvals'], 'max-open-approvals', 200),
    unsafeSkipOverlapPrecheck: env.HOLDFAST_UNSAFE_SKIP_OVERLAP_PRECHECK === '1',
    options: {
      amount: values.amount,
      currency: values.currency,
      lines: values.lines,
      checkpoint: values.checkpoint,
      out: values.out,
    },
  };
}
