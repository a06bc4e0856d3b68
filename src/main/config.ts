import { parseArgs } from 'node:util';

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
  readonly maxBodyBytes: number;
  readonly sweepIntervalMs: number;
  readonly slotCacheMaxAgeMs: number;
}

export const usage = `Usage: holdfast <command> [options]

Commands:
  serve            Streamable HTTP on http://127.0.0.1:3000/mcp (default)
  stdio            MCP over stdin/stdout for local hosts
  db migrate       Create or upgrade the database schema
  sweep            Expire lapsed holds and purge old idempotency records once

Options:
  --db PATH             SQLite file (env HOLDFAST_DB, default ./data/holdfast.db)
  --host ADDR           bind address (env HOST, default 127.0.0.1; loopback only until auth exists)
  --port N              HTTP port (env PORT, default 3000)
  --no-seed             do not create the demo calendars on an empty database
  --hold-ttl SECONDS    how long a hold lasts (env HOLDFAST_HOLD_TTL_SECONDS, default 300)
  --legacy MODE         stateless (default) serves 2025-era clients too; reject serves 2026-07-28 only
  --allowed-host HOST   extra Host header value to accept (repeatable)
  --tenant ID           tenant of the local operator (default local)
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
      host: { type: 'string' },
      port: { type: 'string' },
      'no-seed': { type: 'boolean' },
      'hold-ttl': { type: 'string' },
      legacy: { type: 'string' },
      'allowed-host': { type: 'string', multiple: true },
      tenant: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const legacy = values.legacy ?? 'stateless';
  if (legacy !== 'stateless' && legacy !== 'reject')
    throw new UsageError('--legacy must be stateless or reject');
  return {
    command: values.help ? 'help' : (positionals[0] ?? 'serve'),
    rest: positionals.slice(1),
    databasePath: values.db ?? env.HOLDFAST_DB ?? 'data/holdfast.db',
    host: values.host ?? env.HOST ?? '127.0.0.1',
    port: positiveInt(values.port ?? env.PORT, 'port', 3000),
    seed: !values['no-seed'],
    holdTtlMs: positiveInt(values['hold-ttl'] ?? env.HOLDFAST_HOLD_TTL_SECONDS, 'hold-ttl', 300) * 1000,
    legacy,
    allowedHosts: values['allowed-host'] ?? [],
    tenantId: values.tenant ?? 'local',
    maxBodyBytes: 256 * 1024,
    sweepIntervalMs: 15_000,
    slotCacheMaxAgeMs: 2_000,
  };
}
