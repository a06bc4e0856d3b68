/**
 * Every command and option of `holdfast`, once: the help pages, `holdfast --help`, and the
 * CLI reference in docs/cli.md (`npm run cli-reference` prints it; a test keeps docs/cli.md in step).
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
    '--console-port N        stdio: loopback port of the console this process serves (env HOLDFAST_CONSOLE_PORT; default 0, any free port)',
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
  'auth-issuer':
    "--auth-issuer URL       also accept access tokens of this identity provider, spelled as its tokens' iss; keys found through its discovery document; repeatable (env HOLDFAST_AUTH_ISSUER, comma-separated)",
  'auth-jwks-url':
    '--auth-jwks-url URL     the key set of the one --auth-issuer, instead of discovery (env HOLDFAST_AUTH_JWKS_URL)',
  'auth-audience':
    '--auth-audience AUD     the aud its tokens must carry; repeatable (env HOLDFAST_AUTH_AUDIENCE; default <public URL>/mcp)',
  'auth-person-claim':
    '--auth-person-claim C   claim naming the person by email, first present of a comma list (env HOLDFAST_AUTH_PERSON_CLAIM; default email)',
  'auth-tenant-claim':
    '--auth-tenant-claim C   claim naming the tenant (env HOLDFAST_AUTH_TENANT_CLAIM; default none: the --tenant)',
  'auth-scope-claim':
    '--auth-scope-claim C    claims holding scopes, a space-separated string or an array; comma list, united (env HOLDFAST_AUTH_SCOPE_CLAIM; default scope)',
  'auth-algorithms':
    '--auth-algorithms A     signature algorithms accepted, comma list, never none or HS* (env HOLDFAST_AUTH_ALGORITHMS; default RS256,ES256,PS256,EdDSA)',
  'auth-write-policy':
    '--auth-write-policy P   readonly | draft | direct for identity provider tokens, capped by the role (env HOLDFAST_AUTH_WRITE_POLICY; default draft, a viewer readonly)',
  'auth-jwks-cooldown':
    "--auth-jwks-cooldown SECONDS  least time between two fetches of a provider's keys or metadata (env HOLDFAST_AUTH_JWKS_COOLDOWN_SECONDS; default 30)",
  'login-issuer':
    '--login-issuer URL      people may also sign in to the pages through this OpenID Connect provider (its discovery document); an existing person, matched by the email it verified (env HOLDFAST_LOGIN_ISSUER)',
  'login-client-id':
    '--login-client-id ID    the client registered at that provider, redirect URI <public URL>/login/oidc/callback, scopes openid email (env HOLDFAST_LOGIN_CLIENT_ID; its secret only from env HOLDFAST_LOGIN_CLIENT_SECRET, none: a public client with PKCE)',
  'login-name':
    '--login-name NAME       the button\'s "Sign in with NAME" (env HOLDFAST_LOGIN_NAME; default the issuer\'s host)',
  dev: '--dev                   development: the simulated payment page at /pay/ID (for a signed-in person)',
  'write-policy':
    '--write-policy P        readonly | draft | attested | direct (stdio connection, tokens create; env HOLDFAST_WRITE_POLICY; default draft, for tokens the tenant default)',
  role: '--role R                owner | approver | viewer (default approver)',
  name: '--name N                a display name (users add, tokens create, tenants add)',
  scopes: '--scopes S              comma-separated: read, draft, write, sensitive (default read,draft,write)',
  expires: '--expires DAYS          token lifetime in days (default 90, at most 366)',
  'calls-per-minute': '--calls-per-minute N    tool calls per connection per minute (default 120)',
  'max-active-holds': '--max-active-holds N    holds at once per person (default 10)',
  'max-held-hours':
    "--max-held-hours N      calendar-hours a person's live holds may cover at once (default 24)",
  'max-holds-per-connection': '--max-holds-per-connection N  holds at once per connection (default 10)',
  'max-open-approvals-per-person':
    '--max-open-approvals-per-person N  approvals waiting per person (default 20)',
  'approval-window':
    '--approval-window MIN   minutes a person has to decide an approval; a hold waiting for it is kept as long (default 30, at most 1440)',
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
  'keep-tokens':
    "--keep-tokens           reset-password: keep the person's agent tokens and OAuth connections working",
  'purge-retired':
    '--purge-retired         remove every retired signing key now (a key leaked); then restart every instance',
  'allow-unkeyed':
    '--allow-unkeyed         accept unkeyed records of a database older than keyed audit (they prove nothing on their own)',
  out: '--out FILE              also append the checkpoint line to FILE',
  amount: '--amount A              amount the simulated provider reports (default: the booking price)',
  currency: '--currency C            currency the simulated provider reports (default: the booking price)',
  debug: '--debug                 print the stack of an unexpected error',
  profile:
    '--profile P             hotel-ops: also the reservation-operations contract tools (default standard)',
  'disable-tool': '--disable-tool NAME     switch a contract tool off (MCP_TOOL_DISABLED); repeatable',
  'max-body-mb':
    '--max-body-mb N         largest request in MB (default 10 with --profile hotel-ops, else 0.25)',
  'tool-profile': "--tool-profile P        inherit (the server's --profile), hotel-ops or standard",
  'timing-contract':
    '--timing-contract       /mcp requests must carry x-mcp-client-sent-at (and _meta.clientSentAt); answers carry server times',
  tools:
    "--tools M               flat: every tool listed (default); catalog: three tools that search, read and call them (tenants: also inherit, the server's)",
  every: '--every D               how often a subscription is refreshed: 15m, 2h, 1d (5m to 7d; default 15m)',
  'allow-private-feeds':
    '--allow-private-feeds   fetch calendar feeds from private and loopback addresses, and over http to loopback (closed networks, tests)',
  provider: '--provider P            where imported mail came from (default AGENTBUS)',
  channel: '--channel C             how it came (default EMAIL)',
  events:
    '--events LIST           webhooks add: all, or event types separated by commas (booking.held, booking.confirmed, booking.cancelled, booking.expired, booking.released, booking.payment_flagged, booking.rescheduled, booking.refund_due, booking.refunded)',
  'include-contact':
    '--include-contact       webhooks add: payloads carry customer email and phone unmasked (default masked)',
  'allow-private-webhooks':
    '--allow-private-webhooks  deliver webhooks to loopback and private addresses, http to loopback too (tests, closed networks; never in production)',
  'allow-private-upstreams':
    '--allow-private-upstreams  reach identity providers (--auth-issuer, --login-issuer) and the payment provider on loopback and private addresses (env HOLDFAST_ALLOW_PRIVATE_UPSTREAMS=1; an internal IdP, tests)',
  'webhook-timeout':
    '--webhook-timeout SECONDS  how long one webhook delivery may take (env HOLDFAST_WEBHOOK_TIMEOUT_SECONDS; default 10, 1-30)',
  'pg-pool-size':
    '--pg-pool-size N        PostgreSQL connections this instance may hold (env HOLDFAST_PG_POOL_SIZE; default 20, 1-500): instances x N stays under max_connections',
};

const DATABASE = ['db', 'database', 'audit-key-file', 'tenant'];
const SERVER = [
  'pg-pool-size',
  'allow-private-webhooks',
  'allow-private-upstreams',
  'webhook-timeout',
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
  'profile',
  'disable-tool',
  'max-body-mb',
  'tools',
];
/** serve only: the HTTP wire. */
const HTTP_ONLY = ['timing-contract'];

export const commands: readonly CommandDoc[] = [
  {
    name: 'serve',
    usage: ['holdfast serve [options]'],
    summary: 'Serve MCP over Streamable HTTP at /mcp, with the console for people (the default command).',
    details: [
      'Creates the database on first start; with nobody to sign in yet, prints a one-time link to create the owner.',
      'Agents call /mcp with "Authorization: Bearer <token>": a personal access token (holdfast tokens create) or an',
      'OAuth access token from the embedded authorization server (remote hosts sign their person in at /oauth/authorize),',
      'or an access token of an identity provider named with --auth-issuer, for an existing person (matched by email).',
      'People sign in to the pages with a password or a passkey, or through the provider named with --login-issuer.',
    ],
    options: [
      'host',
      'port',
      'allowed-host',
      'trust-proxy',
      'oauth-token-ttl',
      'oauth-allow-private-metadata',
      'allow-private-feeds',
      'auth-issuer',
      'auth-jwks-url',
      'auth-audience',
      'auth-person-claim',
      'auth-tenant-claim',
      'auth-scope-claim',
      'auth-algorithms',
      'auth-write-policy',
      'auth-jwks-cooldown',
      'login-issuer',
      'login-client-id',
      'login-name',
      ...SERVER,
      ...HTTP_ONLY,
    ],
    examples: ['holdfast serve --port 3000 --db ./data/holdfast.db'],
  },
  {
    name: 'stdio',
    usage: ['holdfast stdio [options]'],
    summary: 'Serve MCP over stdin/stdout for a desktop host, and the console on a loopback port.',
    details: [
      'stdout carries protocol only; logs go to stderr. Creates the database on first start.',
      'approveUrl points at the page this process serves, so nothing else needs to run.',
    ],
    options: ['console-port', 'as', 'write-policy', 'allow-private-feeds', ...SERVER],
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
    usage: [
      'holdfast payments set BOOKING_ID PAID|FAILED|CLOSED|PENDING [--amount A --currency C]',
      'holdfast payments refund BOOKING_ID     ask the payment provider to return money owed back',
      'holdfast payments refunded BOOKING_ID   record money owed back as returned outside Holdfast',
    ],
    summary:
      'Tell the local payment simulator what the provider reports for a booking; settle money owed back after a paid booking was cancelled.',
    options: [...DATABASE, 'amount', 'currency', 'allow-private-upstreams', 'json'],
    examples: ['holdfast payments set bk_2hX… PAID', 'holdfast payments refunded bk_2hX…'],
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
    summary:
      'Run a sweep, then list money to settle: bookings paid after their hold lapsed (money without time) and cancelled paid bookings whose money is owed back.',
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
      'max-held-hours',
      'max-holds-per-connection',
      'max-open-approvals-per-person',
      'approval-window',
      'tool-profile',
      'tools',
      'disable-tool',
      'json',
    ],
    examples: [
      'holdfast tenants set local --calls-per-minute 600 --max-active-holds 20',
      'holdfast tenants set local --tool-profile hotel-ops --disable-tool th_hotel_submit_task_results',
      'holdfast tenants set local --tools catalog',
    ],
  },
  {
    name: 'users',
    usage: [
      'holdfast users list [--json]',
      'holdfast users add EMAIL [--role owner|approver|viewer] [--name N]',
      'holdfast users setup-link EMAIL',
      'holdfast users reset-password EMAIL [--keep-tokens]',
      'holdfast users disable EMAIL',
    ],
    summary: 'People who sign in to approve: add them, send a one-time setup link, reset, disable.',
    details: [
      'No password is ever set from the command line: each person sets their own through the link.',
      "reset-password ends the person's sessions and revokes their agent tokens and OAuth connections (made, perhaps, by whoever knew the password) unless --keep-tokens.",
    ],
    options: [...DATABASE, 'role', 'name', 'keep-tokens', 'json'],
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
    name: 'connections',
    usage: ['holdfast connections list [EMAIL] [--json]', 'holdfast connections revoke CONNECTION_ID'],
    summary: 'Agent hosts people let in through OAuth (one per grant), and revoking one.',
    details: [
      'Revoking ends the grant: its refresh tokens are removed and its access tokens are refused at their next call.',
    ],
    options: [...DATABASE, 'json'],
    examples: ['holdfast connections list ana@example.com', 'holdfast connections revoke 3kq0V…'],
  },
  {
    name: 'inbox',
    usage: [
      'holdfast inbox import FILE… [--provider P] [--channel C] [--json]',
      'holdfast inbox tokens create --name NAME [--expires DAYS] [--json]',
      'holdfast inbox tokens list [--json]',
      'holdfast inbox tokens revoke ID',
    ],
    summary:
      'Put booking mail into the reservation inbox (.eml or JSON files), and the tokens that may post it.',
    details: [
      'Mail is threaded by its headers (Message-ID, In-Reply-To, References); a message already there is not added again.',
      'An ingest token may only POST /api/inbox/messages (scope inbox:ingest); it reads and books nothing.',
    ],
    options: [...DATABASE, 'provider', 'channel', 'name', 'expires', 'json'],
    examples: ['holdfast inbox import mail/*.eml', 'holdfast inbox tokens create --name "mail gateway"'],
  },
  {
    name: 'feeds',
    usage: [
      'holdfast feeds create CALENDAR_ID [--json]',
      'holdfast feeds list [--json]',
      'holdfast feeds revoke ID',
      'holdfast feeds subscribe CALENDAR_ID URL_OR_FILE [--every 15m] [--json]',
      'holdfast feeds subscriptions [--json]',
      'holdfast feeds unsubscribe ID',
      'holdfast feeds refresh ID [--allow-private-feeds] [--json]',
    ],
    summary:
      "Publish a calendar's bookings as a private .ics feed, and count external calendars' busy time as busy.",
    details: [
      'create prints the feed address once (/feeds/<secret>.ics on the public URL); only its hash is stored. Subscribe to it',
      'from Google Calendar (Other calendars > From URL), Outlook (Add calendar > Subscribe from web) or Apple Calendar.',
      'subscribe takes an https URL or an .ics file; the server refreshes it on schedule. Its busy time is refused to holds',
      'and left out of find_slots; a failed refresh keeps the last good busy time and is shown by subscriptions.',
    ],
    options: [...DATABASE, 'every', 'allow-private-feeds', 'json'],
    examples: [
      'holdfast feeds create cal_3kq0V…',
      'holdfast feeds subscribe cal_3kq0V… https://calendar.example.com/busy.ics --every 30m',
    ],
  },
  {
    name: 'oauth',
    usage: ['holdfast oauth rotate-keys [--purge-retired] [--json]'],
    summary: 'A new signing key for the embedded authorization server, shared by every instance.',
    details: [
      'Keys are stored sealed with a secret derived from the audit key. Retired keys keep verifying for 24 hours;',
      'restart instances one by one, since each signs with the key it started with.',
    ],
    options: [...DATABASE, 'purge-retired', 'json'],
    examples: ['holdfast oauth rotate-keys', 'holdfast oauth rotate-keys --purge-retired'],
  },
  {
    name: 'webhooks',
    usage: [
      'holdfast webhooks add URL --events all|TYPE,… [--include-contact] [--json]',
      'holdfast webhooks list [--json]',
      'holdfast webhooks remove ID',
      'holdfast webhooks deliveries [ID | EVENT_ID] [-n N] [--json]',
      'holdfast webhooks redeliver EVENT_ID',
      'holdfast webhooks enable ID',
    ],
    summary:
      'Send booking events to other systems: signed JSON (Standard Webhooks) with retries and a delivery log.',
    details: [
      'The signing secret (whsec_…) is printed once by add; Holdfast keeps it sealed with a key derived from the audit key.',
      'A subscription whose receiver keeps failing is disabled, with the reason, shown by list; enable switches it on again.',
      'deliveries shows the newest deliveries (one webhook’s with its ID), or every attempt of one event with its EVENT_ID.',
      'Only people manage webhooks (here, on the server’s machine): agents over MCP cannot create or read them.',
    ],
    options: [...DATABASE, 'events', 'include-contact', 'allow-private-webhooks', 'lines', 'json'],
    examples: [
      'holdfast webhooks add https://hooks.example.com/holdfast --events booking.confirmed,booking.cancelled',
      'holdfast webhooks deliveries evt_4f1c…',
    ],
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

/** Every help page, as docs/cli.md shows it. */
export function cliReference(): string {
  return [globalHelp(), ...commands.map((c) => `$ holdfast ${c.name} --help\n${commandHelp(c)}`)].join('\n');
}
