import { decideById } from '../app/approvals.js';
import { silentLogger } from '../adapters/log/json-logger.js';
import { tailAudit, verifyAudit } from '../adapters/audit/audit-chain.js';
import { effectiveApprovalStatus } from '../domain/approval/approval.js';
import { paymentStatuses } from '../domain/payment/payment.js';
import type { PaymentStatus } from '../domain/payment/payment.js';
import { formatInstant } from '../domain/time/instant.js';
import type { ServerConfig } from './config.js';
import { UsageError } from './config.js';
import type { Runtime } from './compose.js';
import { buildRuntime } from './compose.js';
import { auditOperatorAction } from './operator-audit.js';

type Print = (text: string) => void;

/** holdfast approvals | payments | audit: the operator's side, on the same database. Returns the exit code. */
export async function runOperatorCommand(config: ServerConfig, print: Print): Promise<number> {
  const runtime = await buildRuntime(config, silentLogger);
  try {
    switch (config.command) {
      case 'approvals':
        return await approvals(runtime, config, print);
      case 'payments':
        return await payments(runtime, config, print);
      case 'reconciliation':
        return await reconciliation(runtime, config, print);
      default:
        return await audit(runtime, config, print);
    }
  } finally {
    await runtime.close();
  }
}

async function approvals(runtime: Runtime, config: ServerConfig, print: Print): Promise<number> {
  const { deps } = runtime;
  const [verb, id] = config.rest;
  const now = deps.clock.now();
  if (verb === 'list' || verb === 'show') {
    const all = await deps.store.read((tx) => tx.listApprovals(config.tenantId));
    const chosen = verb === 'show' ? all.filter((a) => a.id === id) : all;
    if (verb === 'show' && chosen.length === 0) throw new UsageError(`No approval ${id ?? '(missing id)'}`);
    const rows = chosen.map((a) => ({
      ...a,
      status: effectiveApprovalStatus(a, now),
      expiresAt: formatInstant(a.expiresAt),
    }));
    if (config.json || verb === 'show') print(JSON.stringify(verb === 'show' ? rows[0] : rows, null, 2));
    else
      for (const a of rows)
        print(
          `${a.id}  ${a.status.padEnd(8)}  ${a.action.padEnd(15)}  ${a.bookingId}  expires ${a.expiresAt}`,
        );
    return 0;
  }
  if ((verb === 'approve' || verb === 'deny') && id) {
    const decision = verb === 'approve' ? 'APPROVE' : 'DENY';
    const decided = await decideById(deps, config.tenantId, id, decision, 'operator-cli');
    await auditOperatorAction(runtime, {
      tool: `approvals ${verb}`,
      kind: 'approval',
      tenantId: config.tenantId,
      transport: 'cli',
      args: { approvalId: id },
    });
    print(`${decided.id} ${decided.status}`);
    return 0;
  }
  throw new UsageError('Usage: holdfast approvals list | show ID | approve ID | deny ID');
}

async function payments(runtime: Runtime, config: ServerConfig, print: Print): Promise<number> {
  const [verb, bookingId, status] = config.rest;
  if (verb !== 'set' || !bookingId || !paymentStatuses.includes(status as PaymentStatus)) {
    throw new UsageError(
      'Usage: holdfast payments set BOOKING_ID PAID|FAILED|CLOSED|PENDING [--amount A --currency C]',
    );
  }
  const money = { amount: config.options.amount, currency: config.options.currency };
  const report = await runtime.simulator.set(
    bookingId,
    status as PaymentStatus,
    runtime.deps.clock.now(),
    money,
  );
  await auditOperatorAction(runtime, {
    tool: 'payments set',
    kind: 'admin',
    tenantId: config.tenantId,
    transport: 'cli',
    args: report,
  });
  print(JSON.stringify(report));
  return 0;
}

/** Bookings that were paid after their hold lapsed: money without time, for a person to settle. */
async function reconciliation(runtime: Runtime, config: ServerConfig, print: Print): Promise<number> {
  const bookings = await runtime.store.read((tx) => tx.bookingsToReconcile(config.tenantId));
  if (config.json) print(JSON.stringify(bookings, null, 2));
  else if (bookings.length === 0) print('nothing to reconcile');
  else
    for (const b of bookings)
      print(
        `${b.id}  ${b.reference}  ${b.status}  paid ${b.price?.amount} ${b.price?.currency}: reconciliation required`,
      );
  return 0;
}

async function audit(runtime: Runtime, config: ServerConfig, print: Print): Promise<number> {
  const [verb] = config.rest;
  if (verb === 'verify') {
    const result = await verifyAudit(runtime.store);
    if (config.json) print(JSON.stringify(result));
    else if (result.ok) print(`audit chain ok: ${result.records} records`);
    else
      print(
        `audit chain BROKEN at seq ${result.firstBroken!.seq}: ${result.firstBroken!.reason} (${result.records} records read)`,
      );
    return result.ok ? 0 : 1;
  }
  if (verb === 'tail') {
    const records = await tailAudit(runtime.store, Number(config.options.lines ?? 20));
    for (const r of records) {
      print(
        config.json
          ? JSON.stringify(r)
          : `${r.seq}  ${new Date(r.at).toISOString()}  ${r.transport}/${r.clientId}  ${r.tool}  ${r.outcome}${r.errorCode ? ` ${r.errorCode}` : ''}  ${r.traceId}`,
      );
    }
    return 0;
  }
  throw new UsageError('Usage: holdfast audit verify | tail [-n N] [--json]');
}
