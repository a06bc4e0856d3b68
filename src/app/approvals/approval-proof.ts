import type { Approval, HostAttestation } from '../../domain/approval/approval.js';
import {
  attestationMessage,
  attestationRefusal,
  burn,
  consume,
  decide,
  refusalOf,
} from '../../domain/approval/approval.js';
import type { GatedAction, Intent } from '../../domain/approval/intent.js';
import type { Booking } from '../../domain/booking/booking.js';
import type { ReceiptApproval } from '../../domain/booking/receipt.js';
import type { Principal } from '../../domain/identity/principal.js';
import { DomainError } from '../../domain/errors.js';
import { parseInstant } from '../../domain/time/instant.js';
import type { StoreTx } from '../../ports/store/index.js';
import type { ApprovalTerms, PendingApproval } from './approvals.js';
import { openApproval, ownApproval } from './approvals.js';
import type { CallContext } from '../call-context.js';
import { candidateOf, standingRulesFor, useStandingRule } from './standing-rules.js';
import { refusedWith } from '../call-context.js';
import type { AppDeps } from '../deps.js';

/**
 * The proof that a person said yes to this exact change: an approval decided on the page or
 * CLI, a host attestation (policy `attested`), the user's answer to an elicitation, or none
 * needed (policy `direct`). Without one, a pending approval is opened and the call refused.
 */

/** How a gated change is proven; spent in the committing transaction. */
export interface ProofRequest {
  /** A decision made on a server-side surface (approval page, CLI). */
  readonly approval?: { readonly approvalId: string };
  /** Policy `attested`: the host swears the user approved this intent. */
  readonly humanApproval?: HostAttestation;
  /**
   * A person's decision is needed whatever the write policy says (no `direct`, no standing rule
   * in its place): bookings-mcp's writes, each of which carries its own approved token.
   */
  readonly personRequired?: boolean;
  /**
   * A contract whose approvals come with its own intent (expert-booking's v1): the hash of that
   * intent, already checked by the contract to describe this very booking. A host signs it in
   * place of Holdfast's intent hash.
   */
  readonly contractIntentHash?: string;
  /** A decision (a person's, or a host's attested one) counts this long after it was made (expert-booking: 120 s + 5 s). */
  readonly decidedWithinMs?: number;
  /** An approval id that names no approval of this person opens one to ask, instead of NOT_FOUND. */
  readonly unknownApprovalAsks?: boolean;
  /** The terms of an approval opened to ask (its window, a hold that keeps its TTL). */
  readonly terms?: ApprovalTerms;
}

/** Thrown to ask the transport to put the pending approval to the user and call again with the answer. */
export class UserApprovalNeeded extends Error {
  override readonly name = 'UserApprovalNeeded';
  constructor(readonly pending: PendingApproval) {
    super('user approval needed');
  }
}

export type Authorization =
  | { readonly kind: 'direct' }
  | { readonly kind: 'approval'; readonly approval: Approval }
  | { readonly kind: 'attestation'; readonly approvalId: string }
  | { readonly kind: 'standing'; readonly use: StandingUse };

/** A person's standing rule that covers this change; its per-day limits are counted at commit. */
type StandingUse = Parameters<typeof useStandingRule>[3];

/** The user answered the elicitation: decide the pending approval it was about, if it still fits this call. */
async function recordUserAnswer(
  deps: AppDeps,
  principal: Principal,
  action: GatedAction,
  booking: Booking,
  current: { intent: Intent; intentHash: string },
  answer: { approvalId: string; intentHash: string; approved: boolean },
): Promise<Approval> {
  // The decision (a "no", a burn) is committed before it is reported: a declined or mismatched
  // answer must stick, so the same sealed request cannot be replayed later as a "yes".
  const { decided, refusal } = await deps.store.write(async (tx) => {
    const approval = await ownApproval(tx, principal, answer.approvalId);
    if (!approval || answer.intentHash !== current.intentHash) {
      throw new DomainError('APPROVAL_MISMATCH', 'The answer was given for another intent; ask again.');
    }
    const now = deps.clock.now();
    const next = decide(
      approval,
      answer.approved ? 'APPROVE' : 'DENY',
      `user-elicitation:${principal.subject}`,
      now,
    );
    const refused = refusalOf(next, useBy(principal, action, booking, current, now));
    const stored = refused?.burn ? burn(approval, refused.error.message) : next;
    if (!(await tx.approvals.update(stored, 'PENDING')))
      throw new DomainError('APPROVAL_USED', 'The approval was already decided.');
    return { decided: next, refusal: refused };
  });
  if (refusal) throw refusal.error;
  return decided;
}

/** A decision older than the contract allows is spent: the person must be asked again. */
function staleDecision(
  approval: Approval,
  withinMs: number | undefined,
  now: number,
): { error: DomainError; burn: boolean } | null {
  if (withinMs === undefined || approval.decidedAt === null || approval.decidedAt >= now - withinMs)
    return null;
  return {
    error: new DomainError(
      'APPROVAL_EXPIRED',
      `The person approved ${Math.round((now - approval.decidedAt) / 1000)} s ago; an approval counts for ${Math.round(withinMs / 1000)} s. Ask them again.`,
      { approvalId: approval.id },
    ),
    burn: true,
  };
}

/** The use an approval must match: this principal, this action, this booking, this intent, now. */
function useBy(
  principal: Principal,
  action: GatedAction,
  booking: Booking,
  current: { intentHash: string },
  now: number,
) {
  return {
    tenantId: principal.tenantId,
    subject: principal.subject,
    action,
    bookingId: booking.id,
    intentHash: current.intentHash,
    now,
  };
}

/**
 * Marks the proof as used in the committing transaction; a concurrent second use loses. A
 * standing rule records the approval it gives, or throws StandingRuleSpent when it stopped
 * standing or its day is used up (then a person is asked, as without it).
 */
export async function spend(
  deps: AppDeps,
  tx: StoreTx,
  principal: Principal,
  authorization: Authorization,
  now: number,
): Promise<ReceiptApproval> {
  if (authorization.kind === 'standing') {
    const given = await useStandingRule(deps, tx, principal, authorization.use, now);
    return {
      how: 'standing_rule',
      approvalId: given.id,
      by: given.decidedBy,
      at: given.decidedAt,
      standingRuleId: given.standingRuleId ?? null,
    };
  }
  const used = new DomainError('APPROVAL_USED', 'This approval was already used.');
  if (
    authorization.kind === 'approval' &&
    !(await tx.approvals.update(consume(authorization.approval), 'APPROVED'))
  )
    throw used;
  if (
    authorization.kind === 'attestation' &&
    !(await tx.approvals.recordAttestation(principal.tenantId, authorization.approvalId, now))
  ) {
    throw used;
  }
  return approvalOf(authorization);
}

/** What a receipt says about the proof a change was made with. */
function approvalOf(authorization: Exclude<Authorization, { kind: 'standing' }>): ReceiptApproval {
  const none = { approvalId: null, by: null, at: null, standingRuleId: null };
  if (authorization.kind === 'direct') return { how: 'not_required', ...none };
  if (authorization.kind === 'attestation')
    return { how: 'host_attested', ...none, approvalId: authorization.approvalId };
  const { approval } = authorization;
  return {
    how: 'person',
    approvalId: approval.id,
    by: approval.decidedBy,
    at: approval.decidedAt,
    standingRuleId: null,
  };
}

/** Signed by a host registered in this tenant and not revoked; nothing else attests. */
async function requireHostSignature(deps: AppDeps, principal: Principal, attestation: HostAttestation) {
  const host = await deps.store.read((tx) => tx.hosts.getHost(principal.tenantId, attestation.hostId));
  const signed =
    host !== null &&
    host.revokedAt === null &&
    deps.credentials.verifySignature(host.publicKey, attestationMessage(attestation), attestation.signature);
  if (!signed)
    throw new DomainError(
      'APPROVAL_MISMATCH',
      'humanApproval is not signed by a registered host: only the host application can attest, never the model.',
      { approvalId: attestation.approvalId },
    );
}

export async function authorize(
  deps: AppDeps,
  principal: Principal,
  action: GatedAction,
  booking: Booking,
  current: { intent: Intent; intentHash: string },
  input: ProofRequest,
  call: CallContext,
): Promise<Authorization> {
  const policy = principal.writePolicy;
  if (policy === 'direct' && !input.personRequired) return { kind: 'direct' };
  const now = deps.clock.now();

  if (input.approval) {
    const approvalId = input.approval.approvalId;
    const approval = await deps.store.read((tx) => ownApproval(tx, principal, approvalId));
    if (!approval && input.unknownApprovalAsks)
      return requirePerson(deps, principal, action, booking, input, call, undefined, current.intent);
    if (!approval)
      throw new DomainError('NOT_FOUND', `No approval ${approvalId}.`, {
        field: 'approval.approvalId',
        approvalId,
      });
    const refusal =
      refusalOf(approval, useBy(principal, action, booking, current, now)) ??
      staleDecision(approval, input.decidedWithinMs, now);
    if (refusal) {
      if (refusal.burn)
        await deps.store.write(async (tx) => {
          await tx.approvals.update(burn(approval, refusal.error.message), approval.status);
          await call.audit?.recordIn(tx, refusedWith(refusal.error));
        });
      throw refusal.error;
    }
    return { kind: 'approval', approval };
  }

  if (input.humanApproval && policy === 'attested') {
    const attestation = input.humanApproval;
    await requireHostSignature(deps, principal, attestation);
    const approvedAt = parseInstant(attestation.approvedAt, 'humanApproval.approvedAt');
    const signed = { intentHash: input.contractIntentHash ?? current.intentHash };
    const refusal = attestationRefusal(attestation, signed, approvedAt, now, input.decidedWithinMs);
    if (refusal) throw refusal;
    if (
      await deps.store.read((tx) => tx.approvals.attestationSeen(principal.tenantId, attestation.approvalId))
    ) {
      throw new DomainError('APPROVAL_USED', 'This attested approval id was already used.', {
        approvalId: attestation.approvalId,
      });
    }
    return { kind: 'attestation', approvalId: attestation.approvalId };
  }

  const answer = call.elicitation?.answer;
  // A rule the person set for changes like this one approves it at once (its day's limits are
  // counted when it commits); a host's attestation or the user's own answer is never overridden.
  // A series or a change set (several bookings at once), confirmed or cancelled, always goes to a person.
  const series =
    current.intent.series !== undefined ||
    (current.intent.action === 'confirm_booking' && current.intent.changeSet !== undefined);
  if (!input.humanApproval && !answer && !call.personDecides && !series && !input.personRequired) {
    const candidate = candidateOf(current.intent, booking);
    const rules = await standingRulesFor(deps, principal, candidate, booking);
    if (rules.length > 0)
      return {
        kind: 'standing',
        use: {
          rules,
          candidate,
          intent: current.intent,
          intentHash: current.intentHash,
          bookingId: booking.id,
        },
      };
  }
  // The user's answer to an elicitation the host put to them (the transport offers one only
  // where the host, not the model, answers it: stdio).
  const asksUser = policy === 'attested' || policy === 'draft';
  if (asksUser && answer)
    return {
      kind: 'approval',
      approval: await recordUserAnswer(deps, principal, action, booking, current, answer),
    };

  return requirePerson(deps, principal, action, booking, input, call, undefined, current.intent);
}

/**
 * Opens a pending approval of this exact change and refuses the call with it (or, where the host
 * answers elicitations, asks the user): a person must decide.
 */
export async function requirePerson(
  deps: AppDeps,
  principal: Principal,
  action: GatedAction,
  booking: Booking,
  input: ProofRequest,
  call: CallContext,
  why?: string,
  /** The intent to ask about, when it is not the booking's own (a series). */
  intent?: Intent,
): Promise<never> {
  const policy = principal.writePolicy;
  const asksUser = policy === 'attested' || policy === 'draft';
  const elicit = asksUser && call.elicitation !== undefined && !input.humanApproval;
  const required = (pending: PendingApproval) =>
    new DomainError(
      'APPROVAL_REQUIRED',
      input.humanApproval
        ? 'This principal may not attest approvals; a person must decide on the approval page or CLI.'
        : `A person must approve this exact action first.${why ? ` (${why})` : ''}`,
      pending,
    );
  const pending = await deps.store.write(async (tx) => {
    const opened = await openApproval(deps, tx, principal, action, booking, intent, input.terms);
    await call.audit?.recordIn(
      tx,
      elicit
        ? { outcome: 'input_required', code: 'APPROVAL_REQUIRED', message: '' }
        : refusedWith(required(opened)),
    );
    return opened;
  });
  if (elicit) throw new UserApprovalNeeded(pending);
  throw required(pending);
}
