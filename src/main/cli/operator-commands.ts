import { silentLogger } from '../../adapters/log/index.js';
import { isDomainError } from '../../domain/errors.js';
import type { Runtime } from '../runtime/compose.js';
import { buildRuntime } from '../runtime/compose.js';
import type { ServerConfig } from '../config/config.js';
import { UsageError } from '../config/usage-error.js';
import { operatorCall } from './operator-audit.js';
import type { EffectAudit } from '../../ports/audit.js';

type Print = (text: string) => void;

/**
 * holdfast db | approvals | payments | sweep | reconciliation | audit: the operator's side,
 * on the same database. Every command except `audit` (which reads the trail itself) leaves
 * one audit record, failed ones included. Returns the exit code.
 */
export async function runOperatorCommand(config: ServerConfig, print: Print): Promise<number> {
  const runtime = await buildRuntime(config, silentLogger, { createAuditKey: config.command === 'db' });
  const [verb = '', id] = config.rest;
  // One record per command: in the transaction of its effect when it has one, else after it.
  const audit =
    config.command === 'audit'
      ? null
      : operatorCall(runtime, {
          tool: `cli ${config.command}${verb ? ` ${verb}` : ''}`.slice(0, 60),
          kind: KINDS[config.command] ?? 'admin',
          tenantId: config.tenantId,
          transport: 'cli',
          args: argsOf(config, verb, id),
        });
  try {
    const code = await run(runtime, config, print, audit);
    await audit?.finish();
    return code;
  } catch (error) {
    const code = isDomainError(error)
      ? error.code
      : error instanceof UsageError
        ? 'INVALID_ARGUMENTS'
        : 'INTERNAL';
    await audit
      ?.finish({ outcome: 'error', code, message: error instanceof Error ? error.message : '' })
      .catch(() => undefined);
    throw error;
  } finally {
    await runtime.close();
  }
}

/** What the command's audit record keeps of its arguments: a standing rule's target and bounds in full. */
function argsOf(config: ServerConfig, verb: string, id: string | undefined): Record<string, unknown> {
  if (config.command === 'standing-rules')
    return {
      verb,
      ...(id === undefined ? {} : { target: id }),
      ...(verb === 'grant' ? { bounds: config.options.rule ?? {} } : {}),
    };
  // A customer's address is the one thing their erasure must not leave behind.
  if (config.command === 'customers') return { verb };
  return id === undefined ? { verb } : { verb, approvalId: id };
}

const KINDS: Record<string, 'read' | 'write' | 'approval' | 'admin'> = {
  approvals: 'approval',
  'standing-rules': 'approval',
  payments: 'admin',
  sweep: 'admin',
  reconciliation: 'read',
  db: 'admin',
  tenants: 'admin',
  users: 'admin',
  tokens: 'admin',
  hosts: 'admin',
  connections: 'admin',
  oauth: 'admin',
  inbox: 'admin',
  webhooks: 'admin',
  feeds: 'admin',
  caldav: 'admin',
  receipts: 'admin',
  customers: 'admin',
};

/** Each group's code (commands/<group>.ts) is loaded when one of its commands runs. */
async function run(
  runtime: Runtime,
  config: ServerConfig,
  print: Print,
  audit: EffectAudit | null,
): Promise<number> {
  const call = audit ? { audit } : {};
  switch (config.command) {
    case 'db':
      return (await import('./commands/db.js')).migrate(config, print);
    case 'approvals':
      return (await import('./commands/approvals.js')).approvals(runtime, config, print, call);
    case 'standing-rules':
      return (await import('./commands/standing-rules.js')).standingRules(runtime, config, print, call);
    case 'payments':
      return (await import('./commands/payments.js')).payments(runtime, config, print, call);
    case 'sweep':
      return (await import('./commands/bookings.js')).sweepOnce(runtime, config, print);
    case 'reconciliation':
      return (await import('./commands/bookings.js')).reconciliation(runtime, config, print);
    case 'tenants':
    case 'users':
    case 'tokens':
    case 'hosts': {
      const identity = await import('./commands/identity.js');
      return identity[config.command](runtime, config, print);
    }
    case 'connections':
    case 'oauth': {
      const oauth = await import('./commands/oauth.js');
      return oauth[config.command](runtime, config, print);
    }
    case 'inbox':
      return (await import('./commands/inbox.js')).inbox(runtime, config, print);
    case 'webhooks':
      return (await import('./commands/webhooks.js')).webhooks(runtime, config, print);
    case 'feeds':
      return (await import('./commands/feeds.js')).feeds(runtime, config, print);
    case 'caldav':
      return (await import('./commands/caldav.js')).caldav(runtime, config, print);
    case 'customers':
      return (await import('./commands/customers.js')).customers(runtime, config, print, call);
    case 'receipts':
      return (await import('./commands/receipts.js')).receipts(runtime, config, print);
    default:
      return (await import('./commands/audit.js')).auditCommand(runtime, config, print);
  }
}
