/** One command's help page, declared beside the command's code (commands/<group>.help.ts). */
export interface CommandDoc {
  readonly name: string;
  readonly usage: readonly string[];
  readonly summary: string;
  readonly details?: readonly string[];
  readonly options: readonly string[];
  readonly examples: readonly string[];
}

/** Options every command that opens the database takes. */
export const DATABASE = ['db', 'database', 'audit-key-file', 'tenant'];
/** Options of both servers (serve and stdio). */
export const SERVER = [
  'pg-pool-size',
  'pg-query-timeout',
  'allow-private-webhooks',
  'allow-private-upstreams',
  'webhook-timeout',
  'db',
  'database',
  'no-seed',
  'hold-ttl',
  'legacy',
  'log-format',
  'tenant',
  'payments',
  'public-url',
  'payment-url-base',
  'production',
  'dev',
  'dev-clock',
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
export const HTTP_ONLY = ['timing-contract', 'body-timeout', 'headers-timeout'];
