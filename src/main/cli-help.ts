/**
 * Every command and option of `holdfast`, once: the help pages, `holdfast --help`, and the
 * README's CLI reference (`npm run cli-reference` prints it; a test keeps the README in step).
 */

export interface CommandDoc {
  readonly name: string;
  readonly usage: readonly string[];
  readonly summary: string;
  readonly details?: readonly string[];
  readonly options: readonly string[];
  readonly examples: readonly string[];
}

/** One line per option: flag, value, what it does, where else it can come from. */
export const optionDocs: Record<string, string> = {
  db: '--db PATH               SQLite file (env HOLDFAST_DB; default ./data/holdfast.db)',
  database:
    '--database URL          postgres://… to use PostgreSQL; ?schema=NAME picks a schema (env HOLDFAST_DATABASE_URL, then DATABASE_URL)',
  host: '--host ADDR             address to bind (env HOLDFAST_HOST; default 127.0.0.1; off loopback needs --public-url https://… and --trust-proxy)',
  port: '--port N                HTTP port, 0 picks a free one (env HOLDFAST_PORT, then PORT; default 3000)',
  'public-url':
    '--public-url URL        where people reach this server, for approval links (env HOLDFAST_PUBLIC_URL)',
  'console-port':
    '--console-port N        stdio: loopback port of the approval page this process serves (env HOLDFAST_CONSOLE_PORT; default 0, any free port)',
  'no-seed': '--no-seed               do not create the demo calendars on an empty database',
  'hold-ttl': '--hold-ttl SECONDS      how long a hold lasts (env HOLDFAST_HOLD_TTL_SECONDS; default 300)',
  legacy:
    '--legacy MODE           stateless (default): 2026-07-28 and 2025-era clients; reject: 2026-07-28 only',
  'allowed-host': '--allowed-host HOST     another Host (and Origin) name to accept; repeatable',
  tenant: '--tenant ID             the tenant (default local)',
  as: "--as EMAIL              stdio: the person the connection acts for (env HOLDFAST_AS; default: the tenant's only person)",
  'trust-proxy':
    '--trust-proxy           a TLS-terminating proxy forwards here (its X-Forwarded-For is believed); needed off loopback',
  'oauth-token-ttl':
    '--oauth-token-ttl SECONDS  lifetime of OAuth access tokens (env HOLDFAST_OAUTH_TOKEN_TTL_SECONDS; default 600, 5-3600)',
  'oauth-allow-private-metadata':
    '--oauth-allow-private-metadata  fetch Client ID Metadata Documents from private and loopback addresses too (closed networks, tests)',
  dev: '--dev                   development: the simulated payment page at /pay/ID (for a signed-in person)',
  'write-policy':
    '--write-policy P        readonly | draft | attested | direct (stdio connection, tokens create; env HOLDFAST_WRITE_POLICY; default draft)',
  role: '--role R                owner | approver | viewer (default approver)',
  name: '--name N                a display name (users add, tokens create, tenants add)',
  scopes: '--scopes S              comma-separated: read, draft, write, sensitive (default read,draft,write)',
  expires: '--expires DAYS          token lifetime in days (default 90, at most 366)',
  'calls-per-minute': '--calls-per-minute N    tool calls per connection per minute (default 120)',
  'max-active-holds': '--max-active-holds N    holds at once per person (default 10)',
  'max-holds-per-connection': '--max-holds-per-connection N  holds at once per connection (default 10)',
  'max-open-approvals-per-person':
    '--max-open-approvals-per-person N  approvals waiting per person (default 20)',
  payments:
    '--payments KIND         simulator (default) | http (needs HOLDFAST_PAYMENT_QUERY_BASE_URL or PAYMENT_QUERY_BASE_URL)',
  'payment-url-base':
    '--payment-url-base U    payment page base for priced bookings (env HOLDFAST_PAYMENT_URL_BASE)',
  production: '--production            refuse --dev (also HOLDFAST_PRODUCTION=1 or NODE_ENV=production)',
  'audit-key-file':
    '--audit-key-file PATH   the audit HMAC key (env HOLDFAST_AUDIT_KEY_FILE, or the key itself in HOLDFAST_AUDIT_KEY; default audit.key beside the SQLite file, ./data/audit.key for PostgreSQL)',
  'checkpoint-every':
    '--checkpoint-every N    log an audit checkpoint after N sealed records (default 1000; and every 10 minutes)',
  'max-calendars': '--max-calendars N       calendars per tenant (default 1000)',
  'max-open-approvals': '--max-open-approvals N  approvals waiting for a person per tenant (default 200)',
  json: '--json                  machine-readable output (RFC 3339 instants)',
  lines: '-n, --lines N           how many records (1-10000; default 20)',
  checkpoint: '--checkpoint FILE       checkpoint lines (or a server log) to anchor the chain with',
  'allow-unkeyed':
    '--allow-unkeyed         accept unkeyed records of a database older than keyed audit (they prove nothing on their own)',
  out: '--out FILE              also append the checkpoint line to FILE',
  amount: '--amount A              amount the simulated provider reports (default: the booking price)',
  currency: '--currency C            currency the simulated provider reports (default: the booking price)',
  debug: '--debug                 print the stack of an unexpected error',
};

const DATABASE = ['db', 'database', 'audit-key-file', 'tenant'];
const SERVER = [
  'db',
  'database',
  'no-seed',
  'hold-ttl',
  'legacy',
  'tenant',
  'payments',
  'public-url',
  'payment-url-base',
  'production',
  'dev',
  'audit-key-file',
  'checkpoint-every',
  'max-calendars',
  'max-open-approvals',
];

export const commands: readonly CommandDoc[] = [
  {
    name: 'serve',
    usage: ['holdfast serve [options]'],
    summary: 'Serve MCP over Streamable HTTP at /mcp, with the approval page (the default command).',
    details: [
      'Creates the database on first start; with nobody to sign in yet, prints a one-time link to create the owner.',
      'Agents call /mcp with "Authorization: Bearer <token>": a personal access token (holdfast tokens create) or an',
      'OAuth access token from the embedded authorization server (remote hosts sign their person in at /oauth/authorize).',
    ],
    options: [
      'host',
      'port',
      'allowed-host',
      'trust-proxy',
      'oauth-token-ttl',
      'oauth-allow-private-metadata',
      ...SERVER,
    ],
    examples: ['holdfast serve --port 3000 --db ./data/holdfast.db'],
  },
  {
    name: 'stdio',
    usage: ['holdfast stdio [options]'],
    summary: 'Serve MCP over stdin/stdout for a desktop host, and the approval page on a loopback port.',
    details: [
      'stdout carries protocol only; logs go to stderr. Creates the database on first start.',
      'approveUrl points at the page this process serves, so nothing else needs to run.',
    ],
    options: ['console-port', 'as', 'write-policy', ...SERVER],
    examples: ['holdfast stdio --db /absolute/path/holdfast.db --as me@example.com'],
  },
  {
    name: 'db',
    usage: ['holdfast db migrate [--db PATH | --database URL]'],
    summary: 'Create the database or bring its schema up to date.',
    options: ['db', 'database', 'audit-key-file'],
    examples: ['holdfast db migrate --database postgres://holdfast@db:5432/holdfast'],
  },
  {
    name: 'approvals',
    usage: [
      'holdfast approvals list [--json]',
      'holdfast approvals show ID [--json]',
      'holdfast approvals approve ID',
      'holdfast approvals deny ID',
    ],
    summary: 'See what agents asked a person to approve, and decide.',
    options: [...DATABASE, 'json'],
    examples: ['holdfast approvals show 3f2c1a9e-… --db ./data/holdfast.db'],
  },
  {
    name: 'payments',
    usage: ['holdfast payments set BOOKING_ID PAID|FAILED|CLOSED|PENDING [--amount A --currency C]'],
    summary: 'Tell the local payment simulator what the provider reports for a booking.',
    options: [...DATABASE, 'amount', 'currency', 'json'],
    examples: ['holdfast payments set bk_2hX… PAID'],
  },
  {
    name: 'sweep',
    usage: ['holdfast sweep [--json]'],
    summary: 'Expire lapsed holds, purge old idempotency records, follow up late payments, once.',
    options: [...DATABASE, 'json'],
    examples: ['holdfast sweep --db ./data/holdfast.db'],
  },
  {
    name: 'reconciliation',
    usage: ['holdfast reconciliation [--json]'],
    summary: 'Run a sweep, then list bookings paid after their hold lapsed (money without time).',
    options: [...DATABASE, 'json'],
    examples: ['holdfast reconciliation --json'],
  },
  {
    name: 'tenants',
    usage: ['holdfast tenants list [--json]', 'holdfast tenants add|set ID [--name N] [limits]'],
    summary: 'List tenants, add one, or change its limits (calls per minute, holds, approvals).',
    options: [
      'db',
      'database',
      'audit-key-file',
      'name',
      'calls-per-minute',
      'max-active-holds',
      'max-holds-per-connection',
      'max-open-approvals-per-person',
      'json',
    ],
    examples: ['holdfast tenants set local --calls-per-minute 600 --max-active-holds 20'],
  },
  {
    name: 'users',
    usage: [
      'holdfast users list [--json]',
      'holdfast users add EMAIL [--role owner|approver|viewer] [--name N]',
      'holdfast users setup-link EMAIL',
      'holdfast users reset-password EMAIL',
      'holdfast users disable EMAIL',
    ],
    summary: 'People who sign in to approve: add them, send a one-time setup link, reset, disable.',
    details: ['No password is ever set from the command line: each person sets their own through the link.'],
    options: [...DATABASE, 'role', 'name', 'json'],
    examples: ['holdfast users add ana@example.com --role approver'],
  },
  {
    name: 'tokens',
    usage: [
      'holdfast tokens create EMAIL [--name N] [--scopes S] [--write-policy P] [--expires DAYS] [--json]',
      'holdfast tokens list [--json]',
      'holdfast tokens revoke TOKEN_ID',
    ],
    summary: 'Personal access tokens (hf_pat_…) an agent host uses on /mcp, acting for one person.',
    details: ['The token is printed once and stored only as a digest.'],
    options: [...DATABASE, 'name', 'scopes', 'write-policy', 'expires', 'json'],
    examples: ['holdfast tokens create ana@example.com --name "Claude on laptop" --scopes read,draft'],
  },
  {
    name: 'hosts',
    usage: [
      'holdfast hosts add NAME [--json]',
      'holdfast hosts list [--json]',
      'holdfast hosts revoke HOST_ID',
    ],
    summary: 'Host applications that may attest approvals (policy attested) by signing them with their key.',
    details: ['The private key is printed once; Holdfast keeps only the public key.'],
    options: [...DATABASE, 'json'],
    examples: ['holdfast hosts add "Acme desktop"'],
  },
  {
    name: 'audit',
    usage: [
      'holdfast audit verify [--checkpoint FILE] [--allow-unkeyed] [--json]',
      'holdfast audit checkpoint [--out FILE]',
      'holdfast audit tail [-n N] [--json]',
    ],
    summary: 'Verify the keyed audit chain, anchor it with a checkpoint, or read its newest records.',
    options: [...DATABASE, 'checkpoint', 'allow-unkeyed', 'out', 'lines', 'json'],
    examples: [
      'holdfast audit checkpoint --out /mnt/elsewhere/checkpoints.log',
      'holdfast audit verify --checkpoint /mnt/elsewhere/checkpoints.log',
    ],
  },
];

const pad = (text: string) => `  ${text}`;

export function commandDoc(name: string): CommandDoc | undefined {
  return commands.find((c) => c.name === name);
}

/** `holdfast <command> --help`. */
export function commandHelp(doc: CommandDoc): string {
  return [
    `Usage: ${doc.usage[0]}`,
    ...doc.usage.slice(1).map((u) => `       ${u}`),
    '',
    doc.summary,
    ...(doc.details ?? []),
    '',
    'Options:',
    ...[...new Set([...doc.options, 'debug'])].map((o) => pad(optionDocs[o] ?? `--${o}`)),
    '',
    `Example${doc.examples.length > 1 ? 's' : ''}:`,
    ...doc.examples.map(pad),
    '',
  ].join('\n');
}

/** `holdfast --help`. */
export function globalHelp(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'Usage: holdfast <command> [options]     (holdfast <command> --help for more)',
    '',
    'Commands:',
    ...commands.map((c) => pad(`${c.name.padEnd(width)}  ${c.summary}`)),
    '',
    'Everywhere:',
    pad('--help, -h     this page, or a command’s page'),
    pad('--version      print the version'),
    pad('--debug        print the stack of an unexpected error'),
    '',
    'Settings come from the command line first, then HOLDFAST_* variables, then the',
    'conventional PORT and DATABASE_URL; a generic HOST is never read.',
    '',
  ].join('\n');
}

/** Every help page, as the README's CLI reference shows it. */
export function cliReference(): string {
  return [globalHelp(), ...commands.map((c) => `$ holdfast ${c.name} --help\n${commandHelp(c)}`)].join('\n');
}
