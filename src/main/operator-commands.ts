import { appendFileSync, readFileSync } from 'node:fs';
import { decideById } from '../app/approvals.js';
import { sweep } from '../app/sweep.js';
import { silentLogger } from '../adapters/log/json-logger.js';
import { tailAudit } from '../adapters/audit/audit-chain.js';
import { verifyAudit } from '../adapters/audit/audit-verify.js';
import { makeCheckpoint, parseCheckpoints } from '../adapters/audit/checkpoint.js';
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

/** holdfast approvals | payments | sweep | reconciliation | audit: the operator's side, on the same database. Returns the exit code. */
export async function runOperatorCommand(config: ServerConfig, print: Print): Promise<number> {
  const runtime = await buildRuntime(config, silentLogger);
  try {
    switch (config.command) {
      case 'approvals':
        return await approvals(runtime, config, print);
      case 'payments':
        return await payments(runtime, config, print);
      case 'sweep':
        return await sweepOnce(runtime, config, print);
      case 'reconciliation':
        return await reconciliation(runtime, config, print);
      default:
        return await audit(runtime, config, print);
    }
  } finally {
    await runtime.close();
  }
}

/** Expires lapsed holds, purges old idempotency records and follows up lapsed priced holds' payments. */
async function sweepOnce(runtime: Runtime, config: ServerConfig, print: Print): Promise<number> {
  const result = await sweep(runtime.deps);
  await auditOperatorAction(runtime, {
    tool: 'sweep',
    kind: 'admin',
    tenantId: config.tenantId,
    transport: 'cli',
    args: {},
  });
  print(JSON.stringify(result));
  return 0;
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

/**
 * Bookings that were paid after their hold lapsed: money without time, for a person to settle.
 * A sweep runs first, so a lapse nobody noticed yet is found too.
 */
async function reconciliation(runtime: Runtime, config: ServerConfig, print: Print): Promise<number> {
  await sweep(runtime.deps);
  const bookings = await runtime.store.read((tx) => tx.bookingsToReconcile(config.tenantId));
  await auditOperatorAction(runtime, {
    tool: 'reconciliation',
    kind: 'read',
    tenantId: config.tenantId,
    transport: 'cli',
    args: {},
  });
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
    const parsed = config.options.checkpoint
      ? parseCheckpoints(readCheckpointFile(config.options.checkpoint))
      : { checkpoints: [], malformedLines: [] };
    if (parsed.malformedLines.length > 0)
      throw new UsageError(
        `${config.options.checkpoint}: malformed checkpoint on line ${parsed.malformedLines.join(', ')}`,
      );
    if (config.options.checkpoint && parsed.checkpoints.length === 0)
      throw new UsageError(`${config.options.checkpoint}: no checkpoint lines found`);
    const result = await verifyAudit(runtime.store, runtime.auditKey, parsed.checkpoints);
    if (config.json) print(JSON.stringify(result));
    else if (result.ok)
      print(
        `audit chain ok: ${result.records} records` +
          (result.legacyRecords
            ? ` (${result.legacyRecords} on the unkeyed chain of earlier releases)`
            : '') +
          (parsed.checkpoints.length
            ? `, ${result.checkpointsChecked} of ${parsed.checkpoints.length} checkpoints matched and reached`
            : ', no checkpoints given') +
          (result.pending ? `; ${result.pending} entries not yet sealed` : ''),
      );
    else {
      const broken = result.firstBroken!;
      const range =
        broken.lastSeq !== undefined ? `seq ${broken.seq}..${broken.lastSeq}` : `seq ${broken.seq}`;
      print(`audit chain BROKEN at ${range}: ${broken.reason} (${result.records} records read)`);
    }
    return result.ok ? 0 : 1;
  }
  if (verb === 'checkpoint') {
    const head = await runtime.store.read((tx) => tx.auditHead());
    const line = JSON.stringify(makeCheckpoint(runtime.auditKey, head, new Date().toISOString()));
    if (config.options.out) appendFileSync(config.options.out, `${line}\n`);
    print(line);
    return 0;
  }
  if (verb === 'tail') {
    const count = Number(config.options.lines ?? 20);
    if (!Number.isInteger(count) || count < 1 || count > 10_000)
      throw new UsageError(`-n must be a whole number from 1 to 10000, got "${config.options.lines}"`);
    const records = await tailAudit(runtime.store, count);
    for (const r of records) {
      print(
        config.json
          ? JSON.stringify(r)
          : `${r.seq}  ${formatInstant(r.at)}  ${r.transport}/${r.clientId}  ${r.tool}  ${r.outcome}${r.errorCode ? ` ${r.errorCode}` : ''}  ${r.traceId}`,
      );
    }
    return 0;
  }
  throw new UsageError(
    'Usage: holdfast audit verify [--checkpoint FILE] | checkpoint [--out FILE] | tail [-n N] [--json]',
  );
}

function readCheckpointFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    throw new UsageError(`Cannot read checkpoint file ${path}`);
  }
}
