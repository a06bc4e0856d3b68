import type { ApprovalView } from '../../../app/approvals/approvals.js';
import { approvalById, decideById } from '../../../app/approvals/approvals.js';
import { askerOfApproval } from '../../../app/console/approvals.js';
import { localSpan, relative, table } from '../../../adapters/format/index.js';
import { terminalSafe } from '../../../adapters/format/index.js';
import type { Approval } from '../../../domain/approval/approval.js';
import { effectiveApprovalStatus } from '../../../domain/approval/approval.js';
import { formatInstant } from '../../../domain/time/instant.js';
import type { Runtime } from '../../runtime/compose.js';
import type { ServerConfig } from '../../config/config.js';
import { UsageError } from '../../config/usage-error.js';
import { cliDatabaseArgs } from '../../config/database-url.js';
import type { WriteCall } from '../../../app/idempotent.js';

type Print = (text: string) => void;

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

export async function approvals(
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
    // A series: every date it takes in.
    ...(summary.occurrences ?? []).map((o, i): [string, string] => [`Date ${i + 1}`, terminalSafe(o.when)]),
    // A change set: every change, old → new.
    ...(summary.changes ?? []).map((line, i): [string, string] => [`Change ${i + 1}`, terminalSafe(line)]),
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
    ...(approval.requesterNote
      ? [['Agent’s note', terminalSafe(approval.requesterNote)] as [string, string]]
      : []),
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
