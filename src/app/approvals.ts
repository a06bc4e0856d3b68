import type { Approval } from '../domain/approval/approval.js';
import { approvalExpiry, decide, effectiveApprovalStatus } from '../domain/approval/approval.js';
import type { GatedAction, Intent } from '../domain/approval/intent.js';
import { intentOf } from '../domain/approval/intent.js';
import type { Booking } from '../domain/booking/booking.js';
import type { Principal } from '../domain/calendar.js';
import { DomainError } from '../domain/errors.js';
import { formatInstant, formatLocal } from '../domain/time/instant.js';
import type { StoreTx } from '../ports/store.js';
import { requireWriter } from './authorize.js';
import type { AppDeps } from './deps.js';
import { loadBooking } from './snapshot.js';

/** The intent as a person reads it: names, local times, money. */
export async function describeIntent(tx: StoreTx, tenantId: string, intent: Intent, booking: Booking) {
  const calendars = await tx.getCalendars(tenantId, booking.calendarIds);
  return {
    action: intent.action === 'confirm_booking' ? 'Confirm booking' : 'Cancel booking',
    reference: booking.reference,
    calendars: calendars.map((c) => ({
      name: c.name,
      timeZone: c.timeZone,
      start: formatLocal(booking.start, c.timeZone),
      end: formatLocal(booking.end, c.timeZone),
    })),
    startUtc: formatInstant(booking.start),
    endUtc: formatInstant(booking.end),
    amount: booking.price?.amount ?? null,
    currency: booking.price?.currency ?? null,
    customer: booking.customer,
    version: booking.version,
  };
}

export interface PendingApproval {
  readonly approvalId: string;
  readonly intent: Intent;
  readonly intentHash: string;
  readonly summary: Awaited<ReturnType<typeof describeIntent>>;
  readonly approveUrl: string;
  readonly expiresAt: string;
  readonly cli: string;
}

/** Opens a pending approval for the current intent of `action` on `booking`, with a one-time page link. */
export async function openApproval(
  deps: AppDeps,
  tx: StoreTx,
  principal: Principal,
  action: GatedAction,
  booking: Booking,
): Promise<PendingApproval> {
  const now = deps.clock.now();
  const intent = intentOf(action, booking);
  const intentHash = deps.digest.ofJson(intent);
  const approval: Approval = {
    id: deps.ids.newUuid(),
    tenantId: principal.tenantId,
    subject: principal.subject,
    clientId: principal.clientId,
    action,
    bookingId: booking.id,
    intent,
    intentHash,
    status: 'PENDING',
    createdAt: now,
    expiresAt: approvalExpiry(now, action === 'confirm_booking' ? booking.expiresAt : null),
    decidedAt: null,
    decidedBy: null,
    burnedReason: null,
  };
  const token = deps.ids.newSecret();
  await tx.insertApproval(approval, deps.digest.ofJson(token));
  return {
    approvalId: approval.id,
    intent,
    intentHash,
    summary: await describeIntent(tx, principal.tenantId, intent, booking),
    approveUrl: `${deps.config.publicBaseUrl.replace(/\/+$/, '')}/approvals/${token}`,
    expiresAt: formatInstant(approval.expiresAt),
    cli: `holdfast approvals approve ${approval.id}`,
  };
}

/** request_approval: ask a human up front for the action's current intent. */
export async function requestApproval(
  deps: AppDeps,
  principal: Principal,
  input: { bookingId: string; action: GatedAction },
): Promise<PendingApproval> {
  requireWriter(principal);
  return deps.store.write(async (tx) =>
    openApproval(
      deps,
      tx,
      principal,
      input.action,
      await loadBooking(tx, principal.tenantId, input.bookingId),
    ),
  );
}

/** get_approval: the decision so far; anything but APPROVED is an error the agent can act on. */
export async function getApproval(
  deps: AppDeps,
  principal: Principal,
  approvalId: string,
): Promise<Approval> {
  const approval = await deps.store.read((tx) => tx.getApproval(principal.tenantId, approvalId));
  if (!approval || approval.subject !== principal.subject) {
    throw new DomainError('NOT_FOUND', `No approval ${approvalId}.`, { approvalId });
  }
  const status = effectiveApprovalStatus(approval, deps.clock.now());
  const details = { approvalId, status };
  if (status === 'PENDING')
    throw new DomainError('APPROVAL_PENDING', 'The human has not decided yet.', details);
  if (status === 'DENIED') throw new DomainError('APPROVAL_DENIED', 'The human denied this action.', details);
  if (status === 'EXPIRED')
    throw new DomainError('APPROVAL_EXPIRED', 'The approval expired undecided or unused.', details);
  if (status === 'USED') throw new DomainError('APPROVAL_USED', 'The approval was already used.', details);
  return approval;
}

export type Decision = 'APPROVE' | 'DENY';

/** A human decides on the approval page, reached through its one-time token; the token is spent. */
export async function decideByPageToken(deps: AppDeps, token: string, decision: Decision): Promise<Approval> {
  return deps.store.write(async (tx) => {
    const approval = await tx.getApprovalByPageToken(deps.digest.ofJson(token));
    if (!approval) throw new DomainError('NOT_FOUND', 'This approval link is unknown or was already used.');
    const next = decide(approval, decision, 'approval-page', deps.clock.now());
    if (!(await tx.updateApproval(next, 'PENDING')))
      throw new DomainError('INVALID_STATE', 'The approval changed meanwhile.');
    await tx.spendPageToken(approval.tenantId, approval.id);
    return next;
  });
}

/** Reads what the page shows, without deciding. */
export async function approvalForPage(deps: AppDeps, token: string) {
  return deps.store.read(async (tx) => {
    const approval = await tx.getApprovalByPageToken(deps.digest.ofJson(token));
    if (!approval) return null;
    const booking = await loadBooking(tx, approval.tenantId, approval.bookingId);
    return {
      approval,
      status: effectiveApprovalStatus(approval, deps.clock.now()),
      summary: await describeIntent(tx, approval.tenantId, approval.intent, booking),
    };
  });
}

/** An operator decides from the command line. */
export async function decideById(
  deps: AppDeps,
  tenantId: string,
  approvalId: string,
  decision: Decision,
  by: string,
) {
  return deps.store.write(async (tx) => {
    const approval = await tx.getApproval(tenantId, approvalId);
    if (!approval) throw new DomainError('NOT_FOUND', `No approval ${approvalId}.`, { approvalId });
    const next = decide(approval, decision, by, deps.clock.now());
    if (!(await tx.updateApproval(next, 'PENDING')))
      throw new DomainError('INVALID_STATE', 'The approval changed meanwhile.');
    await tx.spendPageToken(approval.tenantId, approval.id);
    return next;
  });
}
