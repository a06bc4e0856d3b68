import { appendFileSync, readFileSync } from 'node:fs';
import type { ApprovalView } from '../../app/approvals/approvals.js';
import { approvalById, decideById } from '../../app/approvals/approvals.js';
import { askerOfApproval } from '../../app/console/approvals.js';
import { sweep } from '../../app/booking/sweep.js';
import { tailAudit } from '../../adapters/audit/audit-chain.js';
import { verifyAudit } from '../../adapters/audit/audit-verify.js';
import { makeCheckpoint, parseCheckpoints } from '../../adapters/audit/checkpoint.js';
import { localSpan, relative, table } from '../../adapters/format/human-time.js';
import { terminalSafe } from '../../adapters/format/terminal.js';
import { silentLogger } from '../../adapters/log/logger.js';
import type { Approval } from '../../domain/approval/approval.js';
import { effectiveApprovalStatus } from '../../domain/approval/approval.js';
import type { Booking } from '../../domain/booking/booking.js';
import { isDomainError } from '../../domain/errors.js';
import { paymentStatuses } from '../../domain/payment/payment.js';
import type { PaymentStatus } from '../../domain/payment/payment.js';
import { formatInstant } from '../../domain/time/instant.js';
import type { Runtime } from '../runtime/compose.js';
import { buildRuntime } from '../runtime/compose.js';
import type { ServerConfig } from '../config/config.js';
import { UsageError } from '../config/usage-error.js';
import { cliDatabaseArgs, describeDatabase } from '../config/database-url.js';
import { operatorCall } from './operator-audit.js';
import type { EffectAudit } from '../../ports/audit.js';
import type { WriteCall } from '../../app/idempotent.js';

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
          args: id === undefined ? { verb } : { verb, approvalId: id },
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

const KINDS: Record<string, 'read' | 'write' | 'approval' | 'admin'> = {
  approvals: 'approval',
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
};

/** Each group's code is loaded when one of its commands runs. */
async function run(
  runtime: Runtime,
  config: ServerConfig,
  print: Print,
  audit: EffectAudit | null,
): Promise<number> {
  const call = audit ? { audit } : {};
  switch (config.command) {
    case 'db':
      return migrate(config, print);
    case 'approvals':
      return approvals(runtime, config, print, call);
    case 'payments':
      return payments(runtime, config, print, call);
    case 'sweep':
      return sweepOnce(runtime, config, print);
    case 'reconciliation':
      return reconciliation(runtime, config, print);
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
    default:
      return auditCommand(runtime, config, print);
  }
}

async function migrate(config: ServerConfig, print: Print): Promise<number> {
  if (config.rest[0] !== 'migrate')
    throw new UsageError('usage: holdfast db migrate [--db PATH | --database URL]');
  // buildRuntime opened (and so migrated) the database already.
  print(`The database at ${describeDatabase(config.database)} has the current schema.`);
  return 0;
}

function approvalJson(a: Approval, now: number) {
  return {
    id: a.id,
    status: effectiveApprovalStatus(a, now),
    action: a.action,
    bookingId: a.bookingId,
    intentHash: a.intentHash,
    requestedBy: { subject: a.subject, client: a.clientId },
    createdAt: formatInstant(a.createdAt),
    expiresAt: formatInstant(a.expiresAt),
    decidedAt: a.decidedAt === null ? null : formatInstant(a.decidedAt),
    decidedBy: a.decidedBy,
  };
}

async function approvals(
  runtime: Runtime,
  config: ServerConfig,
  print: Print,
  call: WriteCall,
): Promise<number> {
  const { deps } = runtime;
  const [verb, id] = config.rest;
  const now = deps.clock.now();
  if (verb === 'list') {
    const all = await deps.store.read((tx) => tx.approvals.list(config.tenantId));
    if (config.json)
      print(
        JSON.stringify(
          all.map((a) => approvalJson(a, now)),
          null,
          2,
        ),
      );
    else if (all.length === 0) print('No approvals.');
    else {
      const askers = await Promise.all(all.map((a) => askerOfApproval(deps, a)));
      print(
        table(
          ['APPROVAL', 'STATUS', 'ACTION', 'BOOKING', 'EXPIRES', 'ASKED BY'],
          all.map((a, i) => [
            a.id,
            effectiveApprovalStatus(a, now),
            a.action,
            a.bookingId,
            relative(a.expiresAt, now),
            terminalSafe(askers[i]!),
          ]),
        ),
      );
    }
    return 0;
  }
  if (verb === 'show' && id) {
    const view = await approvalById(deps, config.tenantId, id);
    if (config.json)
      print(JSON.stringify({ approval: approvalJson(view.approval, now), summary: view.summary }, null, 2));
    else
      print(describeApproval(view, await askerOfApproval(deps, view.approval), now, cliDatabaseArgs(config)));
    return 0;
  }
  if ((verb === 'approve' || verb === 'deny') && id) {
    const decided = await decideById(
      deps,
      config.tenantId,
      id,
      verb === 'approve' ? 'APPROVE' : 'DENY',
      'operator-cli',
      call,
    );
    print(
      config.json
        ? JSON.stringify(approvalJson(decided, now))
        : `Approval ${decided.id} is now ${decided.status}.`,
    );
    return 0;
  }
  throw new UsageError(
    'usage: holdfast approvals list | show ID | approve ID | deny ID (see holdfast approvals --help)',
  );
}

/** `approvals show`: what will happen, in words a person can decide on. */
function describeApproval(
  { approval, status, summary }: ApprovalView,
  asker: string,
  now: number,
  dbArgs: string,
): string {
  const start = Date.parse(summary.startUtc);
  const end = Date.parse(summary.endUtc);
  const customer =
    summary.customer === null
      ? 'not given'
      : Object.entries(summary.customer)
          .map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
          .map(terminalSafe)
          .join('; ');
  const rows: [string, string][] = [
    ...summary.calendars.map((c): [string, string] => [
      c.name,
      `${localSpan(start, end, c.timeZone)} (${c.timeZone})`,
    ]),
    ['UTC', `${summary.startUtc} – ${summary.endUtc}`],
    ...(summary.movedFrom
      ? [
          [
            'Moves',
            `booking ${summary.movedFrom.reference} away from ${summary.movedFrom.startUtc} – ${summary.movedFrom.endUtc} (UTC); it is cancelled when this is confirmed`,
          ] as [string, string],
        ]
      : []),
    [
      'Amount',
      summary.movedFrom
        ? 'nothing new: the payment moves with the booking'
        : summary.amount === null
          ? 'none'
          : `${summary.amount} ${summary.currency}; the payment must clear before it is confirmed`,
    ],
    ['Customer', customer],
    ['Label', summary.label === null ? '—' : terminalSafe(summary.label)],
    ['Asked by', `${terminalSafe(asker)}, ${relative(approval.createdAt, now)}`],
    ['Intent hash', approval.intentHash],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const expiry =
    status === 'PENDING' || status === 'APPROVED'
      ? `, expires ${relative(approval.expiresAt, now)} (${formatInstant(approval.expiresAt)})`
      : '';
  const { consequence } = summary;
  return [
    `Approval ${approval.id}: ${status}${expiry}`,
    `${summary.action} ${summary.reference} (booking version ${summary.version})`,
    'If approved:',
    ...[consequence.time, consequence.money, consequence.customer].map((line) => `  ${terminalSafe(line)}`),
    ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`),
    ...(summary.stale
      ? [
          `  Stale: the booking changed since (now version ${summary.stale.currentVersion}, ${summary.stale.currentStatus}); approving does nothing.`,
        ]
      : []),
    ...(status === 'PENDING'
      ? [`Decide: holdfast approvals approve ${approval.id} ${dbArgs}   (or deny)`]
      : []),
  ].join('\n');
}

async function payments(
  runtime: Runtime,
  config: ServerConfig,
  print: Print,
  call: WriteCall,
): Promise<number> {
  const [verb, bookingId, status] = config.rest;
  if ((verb === 'refund' || verb === 'refunded') && bookingId && status === undefined) {
    const { settleRefund } = await import('../../app/payments/refunds.js');
    const settled = await settleRefund(
      runtime.deps,
      config.tenantId,
      bookingId,
      verb === 'refund' ? 'provider' : 'by-hand',
      'operator-cli',
      call,
    );
    const refund = settled.payment!.refund!;
    print(
      config.json
        ? JSON.stringify(bookingJson(settled))
        : `${refund.amount} ${refund.currency} of booking ${settled.reference} is recorded as returned` +
            (refund.providerReference ? ` (provider reference ${refund.providerReference}).` : '.'),
    );
    return 0;
  }
  if (verb !== 'set' || !bookingId || !paymentStatuses.includes(status as PaymentStatus)) {
    throw new UsageError(
      'usage: holdfast payments set BOOKING_ID PAID|FAILED|CLOSED|PENDING [--amount A --currency C] | refund BOOKING_ID | refunded BOOKING_ID',
    );
  }
  const money = { amount: config.options.amount, currency: config.options.currency };
  const report = await runtime.simulator.set(
    bookingId,
    status as PaymentStatus,
    runtime.deps.clock.now(),
    money,
    call.audit,
  );
  const json = { ...report, paidAt: report.paidAt === null ? null : formatInstant(report.paidAt) };
  print(
    config.json
      ? JSON.stringify(json)
      : `The simulated provider now reports ${report.status} for ${report.bookingId}` +
          (report.amount === null ? '.' : ` (${report.amount} ${report.currency}).`),
  );
  return 0;
}

/** Expires lapsed holds, purges old idempotency records and follows up lapsed priced holds' payments. */
async function sweepOnce(runtime: Runtime, config: ServerConfig, print: Print): Promise<number> {
  const r = await sweep(runtime.deps);
  print(
    config.json
      ? JSON.stringify(r)
      : `Expired ${r.expired} lapsed hold(s), purged ${r.purged} idempotency record(s) and ${r.oauthRecords} expired OAuth record(s); asked the payment provider about ${r.payments.asked} lapsed priced hold(s): ${r.payments.flagged} paid (flagged for reconciliation), ${r.payments.ended} settled.`,
  );
  return 0;
}

function bookingJson(b: Booking) {
  return {
    id: b.id,
    reference: b.reference,
    status: b.status,
    start: formatInstant(b.start),
    end: formatInstant(b.end),
    price: b.price,
    payment: b.payment && {
      status: b.payment.status,
      paidAt: b.payment.paidAt === null ? null : formatInstant(b.payment.paidAt),
      reconciliationRequired: b.payment.reconciliationRequired ?? false,
      refund: b.payment.refund
        ? {
            ...b.payment.refund,
            dueAt: formatInstant(b.payment.refund.dueAt),
            ...(b.payment.refund.returnedAt
              ? { returnedAt: formatInstant(b.payment.refund.returnedAt) }
              : {}),
          }
        : null,
    },
  };
}

/**
 * Money a person must settle: bookings paid after their hold lapsed (money without time), and
 * cancelled paid bookings whose money is owed back. A sweep runs first, so a lapse nobody noticed
 * yet is found too.
 */
async function reconciliation(runtime: Runtime, config: ServerConfig, print: Print): Promise<number> {
  await sweep(runtime.deps);
  const bookings = await runtime.store.read(async (tx) => [
    ...(await tx.bookings.toReconcile(config.tenantId)),
    ...(await tx.bookings.toRefund(config.tenantId)),
  ]);
  if (config.json) print(JSON.stringify(bookings.map(bookingJson), null, 2));
  else if (bookings.length === 0) print('Nothing to reconcile.');
  else
    print(
      table(
        ['BOOKING', 'REFERENCE', 'STATUS', 'PAID', 'AT', 'WHAT TO DO'],
        bookings.map((b) => [
          b.id,
          b.reference,
          b.status,
          `${b.price?.amount} ${b.price?.currency}`,
          b.payment?.paidAt ? formatInstant(b.payment.paidAt) : '',
          b.payment?.refund
            ? `cancelled: return ${b.payment.refund.amount} ${b.payment.refund.currency} (holdfast payments refund|refunded ${b.id})`
            : 'reconciliation required: refund, or book the time again for the customer',
        ]),
      ),
    );
  return 0;
}

async function auditCommand(runtime: Runtime, config: ServerConfig, print: Print): Promise<number> {
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
    const result = await verifyAudit(runtime.store, runtime.auditKey, {
      checkpoints: parsed.checkpoints,
      allowUnkeyed: config.options.allowUnkeyed ?? false,
    });
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
    const head = await runtime.store.read((tx) => tx.audit.head());
    const line = JSON.stringify(makeCheckpoint(runtime.auditKey, head, new Date().toISOString()));
    if (config.options.out) appendFileSync(config.options.out, `${line}\n`);
    print(line);
    return 0;
  }
  if (verb === 'tail') {
    const count = Number(config.options.lines ?? 20);
    if (!/^\d+$/.test(config.options.lines ?? '20') || count < 1 || count > 10_000)
      throw new UsageError(`-n must be a whole number from 1 to 10000, got "${config.options.lines}"`);
    const records = await tailAudit(runtime.store, count);
    if (config.json) for (const r of records) print(JSON.stringify({ ...r, at: formatInstant(r.at) }));
    else
      print(
        table(
          ['SEQ', 'AT', 'TRANSPORT', 'CLIENT', 'TOOL', 'OUTCOME', 'TRACE'],
          records.map((r) => [
            String(r.seq),
            formatInstant(r.at),
            r.transport,
            r.clientId,
            r.tool,
            `${r.outcome}${r.errorCode ? ` ${r.errorCode}` : ''}`,
            r.traceId,
          ]),
        ),
      );
    return 0;
  }
  throw new UsageError(
    'usage: holdfast audit verify [--checkpoint FILE] | checkpoint [--out FILE] | tail [-n N]',
  );
}

function readCheckpointFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    throw new UsageError(`Cannot read checkpoint file ${path}`);
  }
}
