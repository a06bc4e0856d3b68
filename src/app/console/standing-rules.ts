import type { RuleDraft, StandingRule } from '../../domain/approval/standing-rule.js';
import { draftFrom, isLive } from '../../domain/approval/standing-rule.js';
import { DomainError } from '../../domain/errors.js';
import type { AccessToken, Person, Session } from '../../domain/identity/identity.js';
import { mayApprove, signedInRecently } from '../../domain/identity/identity.js';
import type { AppDeps } from '../deps.js';
import type { WriteCall } from '../idempotent.js';
import type { RuleGrant } from '../approvals/standing-rules.js';
import { candidateOf, grantStandingRule, revokeStandingRule } from '../approvals/standing-rules.js';

/** One rule as the console shows it: names, not ids. */
export interface RuleCard {
  readonly rule: StandingRule;
  readonly state: 'standing' | 'revoked' | 'expired';
  /** The calendars by name (null: any calendar). */
  readonly calendars: readonly { id: string; name: string }[] | null;
  /** The one connection by name, or null for every connection of the person. */
  readonly connection: string | null;
  /** Whether the viewer may revoke or change it (its own person; an owner revokes anyone's). */
  readonly mayRevoke: boolean;
  readonly mayChange: boolean;
}

/** What the grant form offers: the tenant's calendars and the viewer's own live connections. */
export interface GrantChoices {
  readonly calendars: readonly { id: string; name: string; timeZone: string }[];
  readonly connections: readonly { id: string; name: string }[];
}

const stateOf = (rule: StandingRule, now: number): RuleCard['state'] =>
  rule.revokedAt !== null ? 'revoked' : isLive(rule, now) ? 'standing' : 'expired';

/** The rules the viewer sees: an owner all of the tenant's, anyone else their own; standing ones first. */
export async function ruleCards(deps: AppDeps, viewer: Person): Promise<RuleCard[]> {
  return deps.store.read(async (tx) => {
    const rules = await tx.standingRules.list(
      viewer.tenantId,
      viewer.role === 'owner' ? undefined : viewer.id,
    );
    const ids = [...new Set(rules.flatMap((r) => r.calendarIds ?? []))];
    const calendars = ids.length ? await tx.calendars.get(viewer.tenantId, ids) : [];
    const named = new Map(calendars.map((c) => [c.id, c.name]));
    const tokens = rules.some((r) => r.connectionId) ? await tx.tokens.listTokens(viewer.tenantId) : [];
    const now = deps.clock.now();
    const cards = rules.map((rule) => ({
      rule,
      state: stateOf(rule, now),
      calendars: rule.calendarIds?.map((id) => ({ id, name: named.get(id) ?? id })) ?? null,
      connection: rule.connectionId
        ? (tokens.find((t) => t.id === rule.connectionId)?.name ?? rule.connectionId)
        : null,
      mayRevoke: rule.revokedAt === null && (rule.personId === viewer.id || viewer.role === 'owner'),
      mayChange: isLive(rule, now) && rule.personId === viewer.id && mayApprove(viewer),
    }));
    const order = { standing: 0, expired: 1, revoked: 2 } as const;
    return cards.sort((a, b) => order[a.state] - order[b.state]);
  });
}

/** One rule the viewer may see, or null. */
export async function ruleCard(deps: AppDeps, viewer: Person, id: string): Promise<RuleCard | null> {
  return (await ruleCards(deps, viewer)).find((card) => card.rule.id === id) ?? null;
}

export async function grantChoices(deps: AppDeps, viewer: Person): Promise<GrantChoices> {
  return deps.store.read(async (tx) => {
    const { items } = await tx.calendars.list(viewer.tenantId, { offset: 0, limit: 1000 });
    const now = deps.clock.now();
    const own = (t: AccessToken) => t.personId === viewer.id && t.revokedAt === null && t.expiresAt > now;
    const tokens = (await tx.tokens.listTokens(viewer.tenantId)).filter(own);
    return {
      calendars: items.map((c) => ({ id: c.id, name: c.name, timeZone: c.timeZone })),
      connections: tokens.map((t) => ({ id: t.id, name: t.name })),
    };
  });
}

/**
 * "Always allow bookings like this": a draft scoped from one of the viewer's own approvals (the
 * change their agent asked for), for them to narrow and grant. Null when it is not theirs.
 */
export async function draftFromApproval(
  deps: AppDeps,
  viewer: Person,
  approvalId: string,
): Promise<RuleDraft | null> {
  if (!mayApprove(viewer)) return null;
  return deps.store.read(async (tx) => {
    const approval = await tx.approvals.get(viewer.tenantId, approvalId);
    // A series always goes to a person: no rule is drafted from one.
    if (
      !approval ||
      approval.subject !== viewer.id ||
      approval.intent.series ||
      ('changeSet' in approval.intent && approval.intent.changeSet)
    )
      return null;
    const booking = await tx.bookings.get(viewer.tenantId, approval.bookingId);
    if (!booking) return null;
    const candidate = candidateOf(approval.intent, booking);
    const [calendar] = await tx.calendars.get(viewer.tenantId, candidate.calendarIds.slice(0, 1));
    const tokenId = approval.clientId.split(' ')[0] ?? '';
    const tokens = await tx.tokens.listTokens(viewer.tenantId);
    const ownToken = tokens.some((t) => t.id === tokenId && t.personId === viewer.id);
    return draftFrom({
      ...candidate,
      connectionId: ownToken ? tokenId : null,
      timeZone: calendar?.timeZone ?? 'UTC',
    });
  });
}

/**
 * Grants (or changes: the old rule revoked in the same write) a rule from the console. Widening
 * what agents may do without asking needs a person who signed in within the last minutes.
 */
export async function grantInConsole(
  deps: AppDeps,
  signed: { person: Person; session: Session },
  grant: RuleGrant,
  call: WriteCall = {},
): Promise<StandingRule> {
  if (!signedInRecently(signed.session, deps.clock.now()))
    throw new DomainError(
      'FORBIDDEN',
      'Sign in again to grant a standing approval: it lets your agents act without asking you.',
      { steps: ['Sign in again, then grant it within 10 minutes.'] },
    );
  return grantStandingRule(
    deps,
    { person: signed.person, via: `console (${signed.session.method})` },
    grant,
    call,
  );
}

/** Revokes a rule the viewer may revoke (their own; an owner anyone's); anything else is not found. */
export async function revokeInConsole(
  deps: AppDeps,
  viewer: Person,
  ruleId: string,
  call: WriteCall = {},
): Promise<StandingRule> {
  const card = await ruleCard(deps, viewer, ruleId);
  if (!card) throw new DomainError('NOT_FOUND', `No standing rule ${ruleId}.`, {});
  return revokeStandingRule(deps, viewer.tenantId, ruleId, call);
}
