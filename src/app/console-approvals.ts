import type { Person } from '../domain/identity/identity.js';
import { mayApprove } from '../domain/identity/identity.js';
import { maskContact } from '../domain/booking/contact-mask.js';
import type { StoreTx } from '../ports/store/index.js';
import type { ApprovalView } from './approvals.js';
import type { AppDeps } from './deps.js';
import { describeIntent } from './approvals.js';
import { loadBooking } from './snapshot.js';
import { effectiveApprovalStatus } from '../domain/approval/approval.js';
import type { Approval } from '../domain/approval/approval.js';

/** An approval as the console shows it: the intent in words, and who asked through what. */
export interface ApprovalCard extends ApprovalView {
  readonly requester: { readonly email: string | null; readonly connection: string };
}

const RECENT = 20;

async function cardOf(deps: AppDeps, tx: StoreTx, approval: Approval, viewer: Person): Promise<ApprovalCard> {
  const booking = await loadBooking(tx, approval.tenantId, approval.bookingId);
  const person = await tx.identity.getPerson(approval.subject);
  const summary = await describeIntent(tx, approval.tenantId, approval.intent, booking);
  return {
    approval,
    status: effectiveApprovalStatus(approval, deps.clock.now()),
    // Viewers decide nothing: they see contact data masked, as on the bookings pages.
    summary:
      summary.customer && !mayApprove(viewer)
        ? { ...summary, customer: maskContact(summary.customer) }
        : summary,
    requester: { email: person?.email ?? null, connection: approval.clientId },
  };
}

/** The console's queue: waiting (oldest first, they expire first), lapsed or stale, and decided. */
export interface ApprovalQueue {
  readonly pending: ApprovalCard[];
  /** Nobody decided in time, or the booking moved on while it waited: nothing to decide any more. */
  readonly lapsed: ApprovalCard[];
  readonly recent: ApprovalCard[];
}

export async function approvalQueue(deps: AppDeps, person: Person): Promise<ApprovalQueue> {
  const now = deps.clock.now();
  return deps.store.read(async (tx) => {
    const all = await tx.approvals.list(person.tenantId);
    const open = all
      .filter((a) => effectiveApprovalStatus(a, now) === 'PENDING')
      .sort((a, b) => a.expiresAt - b.expiresAt);
    const openCards = await Promise.all(open.map((a) => cardOf(deps, tx, a, person)));
    const lapsedUndecided = (a: Approval) =>
      a.decidedAt === null && effectiveApprovalStatus(a, now) === 'EXPIRED';
    const decided = all
      .filter((a) => effectiveApprovalStatus(a, now) !== 'PENDING' && !lapsedUndecided(a))
      .slice(0, RECENT);
    const undecided = all.filter(lapsedUndecided).slice(0, RECENT);
    return {
      pending: openCards.filter((card) => card.summary.stale === null),
      lapsed: [
        ...openCards.filter((card) => card.summary.stale !== null),
        ...(await Promise.all(undecided.map((a) => cardOf(deps, tx, a, person)))),
      ],
      recent: await Promise.all(decided.map((a) => cardOf(deps, tx, a, person))),
    };
  });
}

/** One approval of the person's tenant, or null (another tenant's is as unknown as a made-up id). */
export async function consoleApproval(
  deps: AppDeps,
  person: Person,
  approvalId: string,
): Promise<ApprovalCard | null> {
  return deps.store.read(async (tx) => {
    const approval = await tx.approvals.get(person.tenantId, approvalId);
    return approval && cardOf(deps, tx, approval, person);
  });
}
