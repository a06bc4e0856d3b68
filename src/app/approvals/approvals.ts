import type { Approval } from '../../domain/approval/approval.js';
import {
  approvalExpiry,
  decide,
  effectiveApprovalStatus,
  keptForPerson,
} from '../../domain/approval/approval.js';
import { DEFAULT_APPROVAL_WINDOW_MINUTES } from '../../domain/identity/identity.js';
import type {
  GatedAction,
  Intent,
  IntentSummary,
  MovedFrom,
  SeriesOccurrences,
} from '../../domain/approval/intent.js';
import type { Money } from '../../domain/booking/money.js';
import { sumPrices } from '../../domain/booking/money.js';
import { changesSince, intentOf } from '../../domain/approval/intent.js';
import type { Booking } from '../../domain/booking/booking.js';
import type { Principal } from '../../domain/identity/principal.js';
import type { Person } from '../../domain/identity/identity.js';
import { isLimited, mayApprove } from '../../domain/identity/identity.js';
import { DomainError } from '../../domain/errors.js';
import type { Instant } from '../../domain/time/instant.js';
import { formatLocal, MINUTE_MS, parseInstant } from '../../domain/time/instant.js';
import { zonedSpan } from '../../domain/time/human-time.js';
import { consequenceOf, paymentStandingOf } from '../../domain/approval/consequence.js';
import type { StoreTx } from '../../ports/store/index.js';
import { requireWriter } from '../authorize.js';
import type { AppDeps } from '../deps.js';
import type { Outcome, ResultStorage, WriteCall } from '../idempotent.js';
import { idempotent } from '../idempotent.js';
import { loadBooking, loadOwnBooking } from '../booking/snapshot.js';
import { seriesIntentFor, seriesMembers } from '../booking/series-members.js';
import { describeChanges } from './describe-changes.js';

/**
 * The intent as a person reads it: names, local times, money — taken from the intent being
 * approved, never from the booking as it is now. `stale` says the booking moved on since.
 */
export async function describeIntent(
  tx: StoreTx,
  tenantId: string,
  intent: Intent,
  booking: Booking,
): Promise<IntentSummary> {
  if (intent.action === 'confirm_booking' && intent.changeSet)
    return describeChanges(tx, tenantId, { ...intent, changeSet: intent.changeSet }, booking);
  const calendarIds = intent.action === 'confirm_booking' ? intent.calendarIds : booking.calendarIds;
  const calendars = await tx.calendars.get(tenantId, calendarIds);
  const start = parseInstant(intent.start, 'intent.start');
  const end = parseInstant(intent.end, 'intent.end');
  const moved = booking.version !== intent.version;
  const replaces = intent.action === 'confirm_booking' ? intent.replaces : undefined;
  const movedBooking = replaces ? await tx.bookings.get(tenantId, replaces.bookingId) : null;
  const zone = calendars[0]?.timeZone ?? 'UTC';
  // An occurrence on other calendars (one the person chose instead) names them.
  const elsewhere = intent.series
    ? await tx.calendars.get(tenantId, [
        ...new Set(
          intent.series.occurrences.flatMap((o) => o.calendarIds).filter((id) => !calendarIds.includes(id)),
        ),
      ])
    : [];
  const occurrences = intent.series?.occurrences.map((o) => {
    const same = o.calendarIds.every((id) => calendarIds.includes(id));
    const names = o.calendarIds.map(
      (id) => [...calendars, ...elsewhere].find((c) => c.id === id)?.name ?? id,
    );
    const when = zonedSpan(
      parseInstant(o.start, 'intent.series.start'),
      parseInstant(o.end, 'intent.series.end'),
      zone,
    );
    return {
      reference: o.reference,
      startUtc: o.start,
      endUtc: o.end,
      when: same ? when : `${when} on ${names.join(' and ')}`,
    };
  });
  const price =
    intent.action === 'confirm_booking'
      ? intent.amount !== null && intent.currency !== null
        ? { amount: intent.amount, currency: intent.currency }
        : null
      : intent.series
        ? await seriesRefundable(tx, tenantId, intent.series)
        : booking.price;
  const consequence = consequenceOf({
    action: replaces ? 'move' : intent.action === 'confirm_booking' ? 'confirm' : 'cancel',
    // A move carries the moved booking's payment; anything else has its own.
    payment: paymentStandingOf((replaces ? movedBooking?.payment : booking.payment) ?? null),
    price,
    customerName: booking.customer?.name ?? null,
    calendars: listOf(calendars.map((c) => c.name)),
    ...(occurrences ? { dates: occurrences.length } : {}),
    when: occurrences
      ? `${occurrences.length} dates, from ${occurrences[0]!.when} to ${occurrences.at(-1)!.when} (each listed)`
      : zonedSpan(start, end, zone),
    ...(replaces
      ? {
          movedFromWhen: zonedSpan(
            parseInstant(replaces.start, 'intent.replaces.start'),
            parseInstant(replaces.end, 'intent.replaces.end'),
            zone,
          ),
        }
      : {}),
  });
  return {
    action: replaces
      ? 'Move booking'
      : intent.action === 'confirm_booking'
        ? occurrences
          ? 'Confirm series'
          : 'Confirm booking'
        : occurrences
          ? 'Cancel series from here'
          : 'Cancel booking',
    ...(occurrences ? { occurrences } : {}),
    ...(replaces ? { movedFrom: await movedFrom(tx, tenantId, replaces) } : {}),
    reference: booking.reference,
    calendars: calendars.map((c) => ({
      name: c.name,
      timeZone: c.timeZone,
      start: formatLocal(start, c.timeZone),
      end: formatLocal(end, c.timeZone),
    })),
    startUtc: intent.start,
    endUtc: intent.end,
    amount: intent.action === 'confirm_booking' ? intent.amount : null,
    currency: intent.action === 'confirm_booking' ? intent.currency : null,
    customer: booking.customer,
    label: booking.label,
    version: intent.version,
    consequence,
    stale: moved
      ? {
          currentVersion: booking.version,
          currentStatus: booking.status,
          changes: changesSince(intent, booking, intent.action === 'confirm_booking' ? 'HELD' : 'CONFIRMED'),
        }
      : null,
  };
}

/** What cancelling a series from an occurrence on puts at stake: the sum of those occurrences' prices. */
async function seriesRefundable(
  tx: StoreTx,
  tenantId: string,
  series: SeriesOccurrences,
): Promise<Money | null> {
  const bookings = await Promise.all(series.occurrences.map((o) => tx.bookings.get(tenantId, o.bookingId)));
  return sumPrices(bookings.map((b) => b?.price ?? null));
}

/**
 * What confirming or cancelling this booking would do now: a held occurrence of a series is
 * confirmed with all its held occurrences; a move's replacement ends the booking it moves.
 */
async function currentIntentOf(
  tx: StoreTx,
  action: GatedAction,
  booking: Booking,
  now: Instant,
): Promise<Intent> {
  if (action === 'confirm_booking' && booking.seriesId && !booking.replaces)
    return seriesIntentFor(action, booking.seriesId, await seriesMembers(tx, action, booking, now));
  const moved =
    action === 'confirm_booking' && booking.replaces
      ? ((await tx.bookings.get(booking.tenantId, booking.replaces)) ?? undefined)
      : undefined;
  return intentOf(action, booking, moved);
}

/** The holds a series or change set confirms: each is kept while the person decides. */
async function heldOccurrences(tx: StoreTx, tenantId: string, intent: Intent): Promise<Booking[]> {
  if (intent.action !== 'confirm_booking') return [];
  const fromSet = (intent.changeSet?.changes ?? []).flatMap((c) =>
    c.kind === 'hold' ? [c.bookingId] : c.holdId ? [c.holdId] : [],
  );
  const ids: string[] = intent.series ? intent.series.occurrences.map((o) => o.bookingId) : fromSet;
  const found = await Promise.all(ids.map((id) => tx.bookings.get(tenantId, id)));
  return found.filter((b): b is Booking => b !== null);
}

/** "Room 1", "Room 1 and Room 2", "Room 1, Room 2 and Room 3". */
function listOf(names: readonly string[]): string {
  if (names.length <= 1) return names[0] ?? 'no calendar';
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** The time a move gives up, as a person reads it: each calendar's local start and end. */
async function movedFrom(
  tx: StoreTx,
  tenantId: string,
  replaces: MovedFrom,
): Promise<NonNullable<IntentSummary['movedFrom']>> {
  const calendars = await tx.calendars.get(tenantId, replaces.calendarIds);
  const start = parseInstant(replaces.start, 'intent.replaces.start');
  const end = parseInstant(replaces.end, 'intent.replaces.end');
  return {
    reference: replaces.reference,
    startUtc: replaces.start,
    endUtc: replaces.end,
    calendars: calendars.map((c) => ({
      name: c.name,
      timeZone: c.timeZone,
      start: formatLocal(start, c.timeZone),
      end: formatLocal(end, c.timeZone),
    })),
  };
}

/** A pending approval as the agent is told of it; each transport adds how a person reaches it. */
export interface PendingApproval {
  readonly approvalId: string;
  readonly intent: Intent;
  readonly intentHash: string;
  readonly summary: IntentSummary;
  readonly expiresAt: Instant;
}

/**
 * A contract's own terms for an approval: the window a person has once they look (bookings-mcp's
 * 10 minutes; default the tenant's), and a hold that keeps its own TTL whatever (expert-booking).
 */
export interface ApprovalTerms {
  readonly windowMs?: number;
  readonly holdFixed?: boolean;
  /** The person's yes runs the write (agent-access's pending operation). */
  readonly executes?: boolean;
  /** What the agent wrote for the person deciding (bookings-mcp's requester_note). */
  readonly note?: string;
}

/**
 * Opens a pending approval for the current intent of `action` on `booking`, with a one-time page
 * link. Nothing is kept longer for it: the hold keeps its own expiry, and the approval lasts no
 * longer than that, until a person looks (keepForPerson).
 */
export async function openApproval(
  deps: AppDeps,
  tx: StoreTx,
  principal: Principal,
  action: GatedAction,
  booking: Booking,
  /** The intent when it is not the booking's own: a series change as its caller computed it. */
  given?: Intent,
  terms: ApprovalTerms = {},
): Promise<PendingApproval> {
  const now = deps.clock.now();
  const intent = given ?? (await currentIntentOf(tx, action, booking, now));
  const intentHash = deps.digest.ofJson(intent);
  const windowMs = terms.windowMs ?? (await tenantWindowMs(tx, principal.tenantId));
  // Every occurrence of a series must still be held when it is confirmed, not only the first.
  const kept =
    intent.action === 'confirm_booking' && (intent.series || intent.changeSet)
      ? await heldOccurrences(tx, booking.tenantId, intent)
      : [booking];
  let holdExpiresAt: Instant | null = null;
  if (action === 'confirm_booking')
    for (const held of kept)
      if (held.expiresAt !== null && (holdExpiresAt === null || held.expiresAt < holdExpiresAt))
        holdExpiresAt = held.expiresAt;
  const approval: Approval = {
    id: deps.ids.newUuid(),
    tenantId: principal.tenantId,
    subject: principal.subject,
    clientId: principal.clientId,
    action,
    // A series is approved under its first occurrence, whichever occurrence asked.
    bookingId: intent.bookingId,
    intent,
    intentHash,
    status: 'PENDING',
    createdAt: now,
    expiresAt: approvalExpiry(now, windowMs, holdExpiresAt),
    decidedAt: null,
    decidedBy: null,
    burnedReason: null,
    ...(terms.windowMs !== undefined ? { windowMs: terms.windowMs } : {}),
    ...(terms.holdFixed ? { holdFixed: true } : {}),
    ...(terms.executes ? { executes: true, connectionId: principal.connectionId } : {}),
    ...(terms.note ? { requesterNote: terms.note } : {}),
  };
  // Check and insert under one tenant-wide lock, so racing requests cannot overshoot the cap.
  await tx.serialize(`approvals:${principal.tenantId}`);
  const limit = deps.config.maxOpenApprovalsPerTenant;
  if ((await tx.approvals.countOpen(principal.tenantId, now)) >= limit) {
    throw new DomainError(
      'QUOTA_EXCEEDED',
      `This tenant already has ${limit} approvals waiting for a person, its limit.`,
      { quota: 'openApprovals', limit },
      'Wait for pending approvals to be decided or to expire (the tenant’s approval window), then ask again.',
    );
  }
  const perPerson = principal.limits.openApprovalsPerPerson;
  if (
    isLimited(perPerson) &&
    (await tx.approvals.countOpen(principal.tenantId, now, principal.subject)) >= perPerson
  ) {
    throw new DomainError(
      'QUOTA_EXCEEDED',
      `This person already has ${perPerson} approvals waiting, their limit.`,
      { quota: 'openApprovalsPerPerson', limit: perPerson },
      'Wait for pending approvals to be decided or to expire (the tenant’s approval window), then ask again.',
    );
  }
  await tx.approvals.insert(approval, deps.digest.ofJson(deps.pageTokens.tokenFor(approval.id)));
  return pendingOf(approval, await describeIntent(tx, principal.tenantId, intent, booking));
}

/** The tenant's decision window (the time an approval waits, and a hold with it once a person looks). */
async function tenantWindowMs(tx: StoreTx, tenantId: string): Promise<number> {
  const tenant = await tx.tenants.getTenant(tenantId);
  return (tenant?.approvalWindowMinutes ?? DEFAULT_APPROVAL_WINDOW_MINUTES) * MINUTE_MS;
}

/**
 * A person looked at a pending approval (its page, its card in the console) or decided it: now
 * the hold it would confirm — each occurrence of a series or change set — is kept for their
 * window, and the approval lasts as long (the engine's expiry moves, the booking's version does
 * not: the intent stays the one asked about). Never before: an agent asking alone keeps nothing.
 */
export async function keepForPerson(deps: AppDeps, tx: StoreTx, approval: Approval): Promise<void> {
  if (approval.action !== 'confirm_booking' || approval.holdFixed) return;
  const now = deps.clock.now();
  const windowMs = approval.windowMs ?? (await tenantWindowMs(tx, approval.tenantId));
  const intent = approval.intent;
  const holds =
    intent.action === 'confirm_booking' && (intent.series || intent.changeSet)
      ? await heldOccurrences(tx, approval.tenantId, intent)
      : [await loadBooking(tx, approval.tenantId, approval.bookingId)];
  let approvalUntil: Instant | null = null;
  for (const hold of holds) {
    if (hold.status !== 'HELD') continue;
    const kept = keptForPerson(approval, hold, windowMs, now);
    if (!kept) continue;
    if (!(await tx.bookings.keepHold(hold.tenantId, hold.id, hold.version, kept.holdUntil, now))) continue;
    // Cached free time was computed with the old expiry: after it, the time would look free.
    tx.afterCommit(() => deps.slotCache.invalidate(hold.tenantId, hold.calendarIds));
    approvalUntil = approvalUntil === null ? kept.approvalUntil : Math.min(approvalUntil, kept.approvalUntil);
  }
  if (approvalUntil !== null) await tx.approvals.extendExpiry(approval.tenantId, approval.id, approvalUntil);
}

/** What the agent is told of a pending approval. */
function pendingOf(approval: Approval, summary: IntentSummary): PendingApproval {
  return {
    approvalId: approval.id,
    intent: approval.intent,
    intentHash: approval.intentHash,
    summary,
    expiresAt: approval.expiresAt,
  };
}

/**
 * Replays keep the pending approval as it was, but the customer's details are stored nowhere
 * but their booking (sealed, erasable): a replay reads them from it again. Records kept by
 * releases that stored the link and the expiry as text (at most a day old) still replay.
 */
export const pendingStorage = (tenantId: string): ResultStorage<PendingApproval> => ({
  // The summary names the customer (its consequence in words too): it is described again on replay.
  persist: (pending) => ({ approvalId: pending.approvalId }),
  revive: async (stored, tx) => {
    const kept = stored as Partial<PendingApproval> & { approvalId: string };
    if (kept.summary) return reviveLegacy(kept as PendingApproval);
    const approval = (await tx.approvals.get(tenantId, kept.approvalId))!;
    const booking = await tx.bookings.get(tenantId, approval.bookingId);
    if (!booking)
      throw new DomainError('NOT_FOUND', `No booking ${approval.bookingId}.`, {
        bookingId: approval.bookingId,
      });
    return pendingOf(approval, await describeIntent(tx, tenantId, approval.intent, booking));
  },
});

function reviveLegacy(stored: PendingApproval): PendingApproval {
  const {
    approveUrl: _,
    cli: _cli,
    ...rest
  } = stored as PendingApproval & { approveUrl?: string; cli?: string };
  const expiresAt = rest.expiresAt as Instant | string;
  return {
    ...rest,
    expiresAt: typeof expiresAt === 'string' ? parseInstant(expiresAt, 'expiresAt') : expiresAt,
  };
}

/** request_approval: ask a human up front for the action's current intent; retry-safe by idempotency key. */
export async function requestApproval(
  deps: AppDeps,
  principal: Principal,
  input: { bookingId: string; action: GatedAction; idempotencyKey: string },
  call: WriteCall = {},
  /** A contract's own window or fixed hold (see ApprovalTerms). */
  terms: ApprovalTerms = {},
): Promise<Outcome<PendingApproval>> {
  requireWriter(principal, 'draft');
  const record = {
    principal,
    tool: 'request_approval',
    key: input.idempotencyKey,
    args: input,
    audit: call.audit,
    storage: pendingStorage(principal.tenantId),
  };
  return deps.store.write((tx) =>
    idempotent(deps, tx, record, async () =>
      openApproval(
        deps,
        tx,
        principal,
        input.action,
        await loadOwnBooking(tx, principal, input.bookingId),
        undefined,
        terms,
      ),
    ),
  );
}

/** get_approval: the decision so far; anything but APPROVED is an error the agent can act on. */
export async function getApproval(
  deps: AppDeps,
  principal: Principal,
  approvalId: string,
): Promise<Approval> {
  const approval = await deps.store.read((tx) => ownApproval(tx, principal, approvalId));
  if (!approval) throw new DomainError('NOT_FOUND', `No approval ${approvalId}.`, { approvalId });
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

/**
 * An approval as its own principal sees it; another principal's is indistinguishable from
 * one that does not exist (it can be neither read, nor used, nor burned by them).
 */
export async function ownApproval(tx: StoreTx, principal: Principal, approvalId: string) {
  const approval = await tx.approvals.get(principal.tenantId, approvalId);
  return approval && approval.subject === principal.subject ? approval : null;
}

export type Decision = 'APPROVE' | 'DENY';

/**
 * A signed-in person decides: only an owner or approver of the approval's tenant, and an
 * approval of a booking that moved on since cannot be approved. The page token is spent.
 */
async function decideAsPerson(
  deps: AppDeps,
  tx: StoreTx,
  approval: Approval | null,
  decision: Decision,
  decider: Decider,
  call: WriteCall,
): Promise<Approval> {
  // Another tenant's approval is as unknown to this person as a made-up link.
  if (!approval || approval.tenantId !== decider.person.tenantId)
    throw new DomainError('NOT_FOUND', 'This approval link is unknown or was already used.');
  if (!mayApprove(decider.person))
    throw new DomainError('FORBIDDEN', 'Only an owner or approver of this tenant may decide approvals.', {});
  if (decision === 'APPROVE' && (await movedOn(tx, approval))) {
    throw new DomainError(
      'INVALID_STATE',
      'The booking changed since this was asked; approving it would do nothing.',
      {
        approvalId: approval.id,
        stale: true,
      },
    );
  }
  const next = decide(approval, decision, deciderName(decider), deps.clock.now());
  if (!(await tx.approvals.update(next, 'PENDING')))
    throw new DomainError('INVALID_STATE', 'The approval changed meanwhile.');
  await tx.approvals.spendPageToken(approval.tenantId, approval.id);
  if (decision === 'APPROVE') await keepForPerson(deps, tx, next);
  await call.audit?.recordIn(tx);
  return next;
}

/** Whether what the approval was asked about moved on: its booking's version, or a change set's. */
async function movedOn(tx: StoreTx, approval: Approval): Promise<boolean> {
  const intent = approval.intent;
  if (intent.action === 'confirm_booking' && intent.changeSet) {
    const set = await tx.changeSets.get(approval.tenantId, intent.changeSet.changeSetId);
    return !set || set.status !== 'PROPOSED' || set.version !== intent.version;
  }
  const booking = await loadBooking(tx, approval.tenantId, approval.bookingId);
  return booking.version !== intent.version;
}

/** A signed-in person decides in the console, by the approval's id within their tenant. */
export function decideInConsole(
  deps: AppDeps,
  approvalId: string,
  decision: Decision,
  decider: Decider,
  call: WriteCall = {},
): Promise<Approval> {
  return deps.store.write(async (tx) => {
    const approval = await tx.approvals.get(decider.person.tenantId, approvalId);
    return decideAsPerson(deps, tx, approval, decision, decider, call);
  });
}

/** An approval with what a person needs to decide it: its status now and the intent in words. */
async function viewOf(deps: AppDeps, tx: StoreTx, approval: Approval) {
  const booking = await loadBooking(tx, approval.tenantId, approval.bookingId);
  return {
    approval,
    status: effectiveApprovalStatus(approval, deps.clock.now()),
    summary: await describeIntent(tx, approval.tenantId, approval.intent, booking),
  };
}

export type ApprovalView = Awaited<ReturnType<typeof viewOf>>;

/**
 * What the page shows a signed-in person of the approval's tenant, without deciding. A person who
 * may decide it has now looked: its hold is kept for their window (keepForPerson).
 */
export async function approvalForPage(
  deps: AppDeps,
  token: string,
  person: Person,
): Promise<ApprovalView | null> {
  return deps.store.write(async (tx) => {
    const found = await tx.approvals.getByPageToken(deps.digest.ofJson(token));
    if (!found || found.tenantId !== person.tenantId) return null;
    return viewOf(deps, tx, await seenBy(deps, tx, found, person));
  });
}

/** The approval after `person` looked at it: kept for them if they may decide it (and it waits). */
export async function seenBy(
  deps: AppDeps,
  tx: StoreTx,
  approval: Approval,
  person: Person,
): Promise<Approval> {
  if (!mayApprove(person) || effectiveApprovalStatus(approval, deps.clock.now()) !== 'PENDING')
    return approval;
  await keepForPerson(deps, tx, approval);
  return (await tx.approvals.get(approval.tenantId, approval.id)) ?? approval;
}

/** A signed-in person deciding, and how they proved who they are. */
export interface Decider {
  readonly person: Person;
  readonly method: string;
}

/** What the approval records as its decider: the person, their email and the sign-in method. */
export function deciderName(decider: Decider): string {
  return `${decider.person.id} ${decider.person.email} (${decider.method})`;
}

/** What an operator sees of one approval (`holdfast approvals show`). */
export async function approvalById(
  deps: AppDeps,
  tenantId: string,
  approvalId: string,
): Promise<ApprovalView> {
  return deps.store.read(async (tx) => {
    const approval = await tx.approvals.get(tenantId, approvalId);
    if (!approval) throw new DomainError('NOT_FOUND', `No approval ${approvalId}.`, { approvalId });
    return viewOf(deps, tx, approval);
  });
}

/** An operator decides from the command line. */
export async function decideById(
  deps: AppDeps,
  tenantId: string,
  approvalId: string,
  decision: Decision,
  by: string,
  call: WriteCall = {},
) {
  return deps.store.write(async (tx) => {
    const approval = await tx.approvals.get(tenantId, approvalId);
    if (!approval) throw new DomainError('NOT_FOUND', `No approval ${approvalId}.`, { approvalId });
    const next = decide(approval, decision, by, deps.clock.now());
    if (!(await tx.approvals.update(next, 'PENDING')))
      throw new DomainError('INVALID_STATE', 'The approval changed meanwhile.');
    await tx.approvals.spendPageToken(approval.tenantId, approval.id);
    if (decision === 'APPROVE') await keepForPerson(deps, tx, next);
    await call.audit?.recordIn(tx);
    return next;
  });
}
