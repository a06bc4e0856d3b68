import type { Approval } from '../../domain/approval/approval.js';
import type { Intent } from '../../domain/approval/intent.js';
import type { RuleAction, StandingRule, StandingRuleBounds } from '../../domain/approval/standing-rule.js';
import {
  dayOfUse,
  decidedByRule,
  isLive,
  revoke,
  ruleExpiry,
  validateBounds,
  whyNot,
  withinDailyLimits,
} from '../../domain/approval/standing-rule.js';
import type { Booking } from '../../domain/booking/booking.js';
import type { Money } from '../../domain/booking/money.js';
import { DomainError, invalidArgument } from '../../domain/errors.js';
import type { Person } from '../../domain/identity/identity.js';
import { mayApprove } from '../../domain/identity/identity.js';
import type { Principal } from '../../domain/identity/principal.js';
import type { Instant } from '../../domain/time/instant.js';
import { parseInstant } from '../../domain/time/instant.js';
import type { StoreTx } from '../../ports/store/index.js';
import type { AppDeps } from '../deps.js';
import type { WriteCall } from '../idempotent.js';

/** A person granting a rule, and how they proved who they are ("console (passkey)", "cli operator"). */
export interface Grantor {
  readonly person: Person;
  readonly via: string;
}

export interface RuleGrant extends StandingRuleBounds {
  /** One of the person's own agent connections (a token id), or null for all of them. */
  readonly connectionId: string | null;
  /** How many days it stands (1–90). */
  readonly days: number;
  /** A live rule of the same person this one takes the place of (revoked in the same write). */
  readonly replaces?: string | null;
}

/**
 * A person grants a standing rule for their own agents. Only an owner or approver (someone who
 * may approve at all), only for themself, only over calendars and connections of theirs.
 */
export async function grantStandingRule(
  deps: AppDeps,
  grantor: Grantor,
  grant: RuleGrant,
  call: WriteCall = {},
): Promise<StandingRule> {
  const { person } = grantor;
  if (!mayApprove(person))
    throw new DomainError(
      'FORBIDDEN',
      'Only an owner or approver may approve, and so grant standing rules.',
      {},
    );
  validateBounds(grant, grant.days);
  return deps.store.write(async (tx) => {
    if (grant.calendarIds) {
      const found = await tx.calendars.get(person.tenantId, grant.calendarIds);
      if (found.length !== new Set(grant.calendarIds).size)
        throw invalidArgument('calendars', 'every calendar must be one of this tenant’s');
    }
    if (grant.connectionId !== null) {
      const tokens = await tx.tokens.listTokens(person.tenantId);
      if (!tokens.some((t) => t.id === grant.connectionId && t.personId === person.id))
        throw invalidArgument('connection', 'one of your own agent connections (a token id)');
    }
    const now = deps.clock.now();
    const replaced = grant.replaces ? await revokeReplaced(tx, person, grant.replaces, now) : [];
    const { days: _days, connectionId, replaces: _replaces, ...bounds } = grant;
    const rule: StandingRule = {
      ...bounds,
      id: deps.ids.newId('rule'),
      tenantId: person.tenantId,
      personId: person.id,
      personName: person.displayName || person.email,
      connectionId,
      createdAt: now,
      expiresAt: ruleExpiry(now, grant.days),
      revokedAt: null,
      grantedVia: grantor.via,
      replaced,
    };
    await tx.standingRules.insert(rule);
    await call.audit?.recordIn(tx);
    return rule;
  });
}

/**
 * The person's own live rule a changed one takes the place of, revoked under its lock; answers
 * the chain of rules whose uses today the new one counts.
 */
async function revokeReplaced(tx: StoreTx, person: Person, ruleId: string, now: Instant): Promise<string[]> {
  await tx.serialize(lockOf(person.tenantId, ruleId));
  const old = await tx.standingRules.get(person.tenantId, ruleId);
  if (!old || old.personId !== person.id)
    throw new DomainError('NOT_FOUND', `No standing rule ${ruleId}.`, {});
  if (!isLive(old, now))
    throw new DomainError('INVALID_STATE', `Standing rule ${ruleId} no longer stands; grant a new one.`, {});
  await tx.standingRules.revoke(person.tenantId, ruleId, now);
  // A rule changed long ago need not be counted: only the last few stand within any one day.
  return [old.id, ...old.replaced].slice(0, 20);
}

/** Revokes a rule of the tenant at once: a confirmation it would approve from now on goes to a person. */
export async function revokeStandingRule(
  deps: AppDeps,
  tenantId: string,
  ruleId: string,
  call: WriteCall = {},
): Promise<StandingRule> {
  return deps.store.write(async (tx) => {
    await tx.serialize(lockOf(tenantId, ruleId));
    const rule = await tx.standingRules.get(tenantId, ruleId);
    if (!rule) throw new DomainError('NOT_FOUND', `No standing rule ${ruleId}.`, {});
    const revoked = revoke(rule, deps.clock.now());
    if (!(await tx.standingRules.revoke(tenantId, ruleId, revoked.revokedAt!)))
      throw new DomainError('INVALID_STATE', `Standing rule ${ruleId} was already revoked.`, {});
    await call.audit?.recordIn(tx);
    return revoked;
  });
}

/** The tenant's rules (or one person's), newest first, standing or not. */
export function listStandingRules(
  deps: AppDeps,
  tenantId: string,
  personId?: string,
): Promise<StandingRule[]> {
  return deps.store.read((tx) => tx.standingRules.list(tenantId, personId));
}

/** What a rule judges of a gated change, from the intent being approved. */
export interface RuleCandidate {
  readonly action: RuleAction;
  readonly calendarIds: readonly string[];
  readonly start: Instant;
  readonly end: Instant;
  readonly price: Money | null;
}

export function candidateOf(intent: Intent, booking: Booking): RuleCandidate {
  const start = parseInstant(intent.start, 'intent.start');
  const end = parseInstant(intent.end, 'intent.end');
  // A cancellation puts the booking's price at stake (a paid one is owed back): its money bounds apply.
  if (intent.action === 'cancel_booking')
    return { action: 'cancel', calendarIds: booking.calendarIds, start, end, price: booking.price };
  // A move charges nothing new, but ends a booking too: the calendars it leaves must be the rule's as well.
  if (intent.replaces)
    return {
      action: 'move',
      calendarIds: [...new Set([...intent.calendarIds, ...intent.replaces.calendarIds])],
      start,
      end,
      price: null,
    };
  const price =
    intent.amount !== null && intent.currency !== null
      ? { amount: intent.amount, currency: intent.currency }
      : null;
  return { action: 'confirm', calendarIds: intent.calendarIds, start, end, price };
}

/** A customer with another booking of theirs confirmed (or confirmed once, then ended) in the tenant. */
async function customerKnown(tx: StoreTx, booking: Booking): Promise<boolean> {
  const key = await tx.customers.customerKeyOf(booking.tenantId, booking.id);
  if (key === null) return false;
  const theirs = await tx.customers.bookingsOfCustomers(booking.tenantId, [key]);
  return theirs.some(
    ({ booking: b }) => b.id !== booking.id && (b.status === 'CONFIRMED' || b.status === 'CANCELLED'),
  );
}

/**
 * The principal's person's live rules that cover this change and, as read now, have room left
 * today, oldest first; none: a person decides as always.
 */
export async function standingRulesFor(
  deps: AppDeps,
  principal: Principal,
  candidate: RuleCandidate,
  booking: Booking,
): Promise<StandingRule[]> {
  return deps.store.read(async (tx) => {
    const now = deps.clock.now();
    const rules = await tx.standingRules.liveOf(principal.tenantId, principal.subject, now);
    if (rules.length === 0) return [];
    const known = rules.some((r) => r.customers === 'known') ? await customerKnown(tx, booking) : false;
    const use = {
      tenantId: principal.tenantId,
      personId: principal.subject,
      connectionId: principal.connectionId,
      ...candidate,
      customerKnown: known,
      now,
    };
    const fitting = rules.filter((rule) => whyNot(rule, use) === null);
    // A rule whose day is already used up is no candidate (so nobody is asked to pay first); the
    // committing write counts again under the rule's lock, which is what holds under a race.
    const withRoom: StandingRule[] = [];
    for (const rule of fitting)
      if ((await dayIsFull(tx, rule, candidate.price, now)) === null) withRoom.push(rule);
    return withRoom;
  });
}

/**
 * Why one more use costing `price` does not fit the rule's day, or null when it does: its uses
 * today (and those of the rules it replaced) against its per-day limits.
 */
async function dayIsFull(
  tx: StoreTx,
  rule: StandingRule,
  price: Money | null,
  now: Instant,
): Promise<string | null> {
  const day = dayOfUse(rule, now);
  const earlier = await tx.approvals.usesOfRules(
    rule.tenantId,
    [rule.id, ...rule.replaced],
    day.from,
    day.to,
  );
  return withinDailyLimits(rule, earlier.map(priceOfApproval), price);
}

/** The rule stopped standing, or its day is used up, between the check and the commit. */
export class StandingRuleSpent extends Error {
  override readonly name = 'StandingRuleSpent';
}

const lockOf = (tenantId: string, ruleId: string) => `standing-rule:${tenantId}:${ruleId}`;

/**
 * In the committing transaction: the first of the rules that, under its own lock, still stands
 * and has room for one more use in its day gives the approval — recorded, already used, bound to
 * the intent. Racing agents serialise on the lock, so a daily cap of N confirms exactly N; a
 * revoke takes the same lock, so a use it did not see cannot commit after it.
 */
export async function useStandingRule(
  deps: AppDeps,
  tx: StoreTx,
  principal: Principal,
  use: {
    readonly rules: readonly StandingRule[];
    readonly candidate: RuleCandidate;
    readonly intent: Intent;
    readonly intentHash: string;
    readonly bookingId: string;
  },
  now: Instant,
): Promise<Approval> {
  const reasons: string[] = [];
  for (const candidateRule of use.rules) {
    await tx.serialize(lockOf(candidateRule.tenantId, candidateRule.id));
    const rule = await tx.standingRules.get(candidateRule.tenantId, candidateRule.id);
    if (!rule || !isLive(rule, now)) {
      reasons.push(`${candidateRule.id} ${rule?.revokedAt ? 'was revoked' : 'expired'}`);
      continue;
    }
    const full = await dayIsFull(tx, rule, use.candidate.price, now);
    if (full) {
      reasons.push(`${rule.id}: ${full}`);
      continue;
    }
    const approval: Approval = {
      id: deps.ids.newUuid(),
      tenantId: principal.tenantId,
      subject: principal.subject,
      clientId: principal.clientId,
      action: use.intent.action,
      bookingId: use.bookingId,
      intent: use.intent,
      intentHash: use.intentHash,
      status: 'USED',
      createdAt: now,
      expiresAt: now,
      decidedAt: now,
      decidedBy: decidedByRule(rule),
      burnedReason: null,
      standingRuleId: rule.id,
    };
    await tx.approvals.insert(approval, null);
    return approval;
  }
  throw new StandingRuleSpent(reasons.join('; '));
}

/** What an approval a rule made cost (its intent's price), for the day's money. */
function priceOfApproval(approval: Approval): Money | null {
  const intent = approval.intent;
  if (intent.action !== 'confirm_booking' || intent.replaces) return null;
  return intent.amount !== null && intent.currency !== null
    ? { amount: intent.amount, currency: intent.currency }
    : null;
}
