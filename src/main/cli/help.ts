/**
 * Every command and option of `holdfast`, once: the help pages, `holdfast --help`, and the
 * CLI reference in docs/cli.md (`npm run cli-reference` prints it; a test keeps docs/cli.md in step).
 */

import type { CommandDoc } from './command-doc.js';
import { approvalsHelp } from './commands/approvals.help.js';
import { auditHelp } from './commands/audit.help.js';
import { reconciliationHelp, sweepHelp } from './commands/bookings.help.js';
import { dbHelp } from './commands/db.help.js';
import { feedsHelp } from './commands/feeds.help.js';
import { caldavHelp } from './commands/caldav.help.js';
import { connectionsHelp, hostsHelp, tenantsHelp, tokensHelp, usersHelp } from './commands/identity.help.js';
import { inboxHelp } from './commands/inbox.help.js';
import { oauthHelp } from './commands/oauth.help.js';
import { receiptsHelp } from './commands/receipts.help.js';
import { customersHelp } from './commands/customers.help.js';
import { paymentsHelp } from './commands/payments.help.js';
import { probeHelp } from './commands/probe.help.js';
import { serveHelp, stdioHelp } from './commands/server.help.js';
import { standingRulesHelp } from './commands/standing-rules.help.js';
import { webhooksHelp } from './commands/webhooks.help.js';

export type { CommandDoc } from './command-doc.js';

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
  'log-format':
    '--log-format F          json: one JSON object per line; pretty: one readable line per event; default auto: pretty on a terminal, JSON otherwise (env HOLDFAST_LOG_FORMAT)',
  legacy:
    '--legacy MODE           stateless (default): 2026-07-28 and 2025-era clients; reject: 2026-07-28 only',
  'allowed-host': '--allowed-host HOST     another Host (and Origin) name to accept; repeatable',
  tenant: '--tenant ID             the tenant (default local)',
  as: "--as EMAIL              stdio: the person the connection acts for (env HOLDFAST_AS; default: the tenant's only person; on a tenant with nobody yet, its owner)",
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
  'dev-clock':
    "--dev-clock FILE        development: the time is the real time plus the milliseconds written in FILE, for the server and the commands alike (env HOLDFAST_DEV_CLOCK; the agent benchmark's virtual clock)",
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
    '--payments KIND         simulator (default; refused in production) | http (needs HOLDFAST_PAYMENT_QUERY_BASE_URL or PAYMENT_QUERY_BASE_URL) | none (production default without a provider: priced bookings cannot confirm)',
  'payment-url-base':
    '--payment-url-base U    payment page base for priced bookings (env HOLDFAST_PAYMENT_URL_BASE)',
  production:
    '--production            refuse --dev and --dev-clock (also HOLDFAST_PRODUCTION=1 or NODE_ENV=production)',
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
  jwks: "--jwks FILE_OR_URL    receipts verify: the published receipt keys (a JWKS file, or the server's /receipts/jwks.json)",
  out: '--out FILE              also append the checkpoint line to FILE',
  amount: '--amount A              amount the simulated provider reports (default: the booking price)',
  currency: '--currency C            currency the simulated provider reports (default: the booking price)',
  debug: '--debug                 print the stack of an unexpected error',
  token: '--token T               probe: the bearer token to call with (a short-lived, read-only one)',
  profile:
    '--profile P             standard (default); hotel-ops: also the reservation-operations contract tools; a source system as itself: expert-booking (its catalog of four tools, the timing contract, 2026-07-28 clients only), bookings, deltat, agent-access (docs/profiles.md). tokens create: hotel-ops scopes',
  'disable-tool': '--disable-tool NAME     switch a contract tool off (MCP_TOOL_DISABLED); repeatable',
  'max-body-mb':
    '--max-body-mb N         largest request in MB (default 10 with --profile hotel-ops, else 0.25)',
  actions: '--actions A,B             standing-rules grant: confirm, cancel, move (default confirm)',
  calendars: '--calendars C,D          standing-rules grant: calendar ids or names, or any (default any)',
  'max-per-booking': '--max-per-booking "80.00 EUR"  standing-rules grant: the most one booking may cost',
  'max-per-day':
    '--max-per-day "200.00 EUR"  standing-rules grant: the most its bookings may cost in one day',
  weekdays:
    '--weekdays mon-fri       standing-rules grant: local weekdays, a range or a list (default every day)',
  hours: '--hours 09:00-17:00      standing-rules grant: local hours a booking must lie within (default any)',
  'bookings-per-day': '--bookings-per-day N     standing-rules grant: the most it approves in one local day',
  customers:
    '--customers any|known    standing-rules grant: known: only customers with a booking confirmed before (default any)',
  connection:
    '--connection TOKEN_ID    standing-rules grant: only that agent connection of the person (default all of theirs)',
  days: '--days N                 standing-rules grant: how long it stands, 1-90 days (default 30)',
  zone: "--zone IANA              standing-rules grant: where its weekdays, hours and days are read (default the calendars' zone, else UTC)",
  'customer-retention':
    "--customer-retention D  erase a customer's details D days after their last booking ends (1-3660), or none (default: kept until erased)",
  'counter-offers':
    '--counter-offers on|off  whether a refused time names other free times (alternatives); off for the whole tenant (default on)',
  'tool-profile':
    "--tool-profile P        inherit (the server's --profile), standard, hotel-ops, expert-booking, bookings, deltat or agent-access: the contract this tenant's agents are served",
  'body-timeout':
    '--body-timeout S        a request body must arrive within S seconds, else 408 and the connection closes (default 30)',
  'headers-timeout':
    "--headers-timeout S     a request's headers must arrive within S seconds, else the connection closes (default 10)",
  'timing-contract':
    '--timing-contract       /mcp requests must carry x-mcp-client-sent-at (and _meta.clientSentAt); answers carry server times',
  tools:
    "--tools M               flat: every tool listed (default); catalog: three tools that search, read and call them (tenants: also inherit, the server's)",
  every:
    '--every D               how often a subscription is refreshed: 15m, 2h, 1d (5m to 7d; default 15m); caldav connect: 30s, 1m, 1h (15s to 24h; default 1m)',
  username: '--username U            caldav connect: the account that signs in to the CalDAV server',
  'password-env':
    '--password-env NAME     caldav connect: the environment variable holding its password or app password (default HOLDFAST_CALDAV_PASSWORD)',
  oauth:
    '--oauth google|URL      caldav connect: sign in with OAuth 2.0 (Google takes nothing else): google, or a token endpoint',
  'client-id': '--client-id ID          caldav connect --oauth: the OAuth client id',
  'client-secret-env':
    '--client-secret-env NAME  caldav connect --oauth: the variable holding the client secret (default HOLDFAST_CALDAV_CLIENT_SECRET)',
  'refresh-token-env':
    '--refresh-token-env NAME  caldav connect --oauth: the variable holding the refresh token (default HOLDFAST_CALDAV_REFRESH_TOKEN)',
  'share-contact':
    "--share-contact         caldav connect: the events written carry the customer's name, e-mail and phone (default: only the booking's label, reference and price)",
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
  'pg-query-timeout':
    '--pg-query-timeout S    PostgreSQL: a statement not answered within S seconds is given up and its connection dropped, the call answers UNAVAILABLE (env HOLDFAST_PG_QUERY_TIMEOUT; default 15)',
  'pg-pool-size':
    '--pg-pool-size N        PostgreSQL connections this instance may hold (env HOLDFAST_PG_POOL_SIZE; default 20, 1-500): instances x N stays under max_connections',
};

/** Every command, in the order `holdfast --help` lists them; each page is declared beside its command. */
export const commands: readonly CommandDoc[] = [
  serveHelp,
  stdioHelp,
  dbHelp,
  approvalsHelp,
  standingRulesHelp,
  paymentsHelp,
  sweepHelp,
  reconciliationHelp,
  tenantsHelp,
  usersHelp,
  tokensHelp,
  hostsHelp,
  connectionsHelp,
  inboxHelp,
  feedsHelp,
  caldavHelp,
  oauthHelp,
  webhooksHelp,
  receiptsHelp,
  customersHelp,
  auditHelp,
  probeHelp,
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
