import type { Approval } from '../../domain/approval/approval.js';
import type { GatedAction } from '../../domain/approval/intent.js';
import type { OperationStatus } from '../../domain/approval/operation.js';
import {
  cancelFailed,
  isRetryable,
  OPERATION_TTL_MS,
  operationStatus,
  stateBasis,
} from '../../domain/approval/operation.js';
import type { Booking } from '../../domain/booking/booking.js';
import { DomainError, isDomainError } from '../../domain/errors.js';
import type { Person } from '../../domain/identity/identity.js';
import { mayApprove } from '../../domain/identity/identity.js';
import type { Principal } from '../../domain/identity/principal.js';
import type { Instant } from '../../domain/time/instant.js';
import { requireWriter } from '../authorize.js';
import { gatedBookingChange } from '../booking/gated-booking.js';
import type { BookingSnapshot } from '../booking/snapshot.js';
import { loadOwnBooking, snapshotOf } from '../booking/snapshot.js';
import type { CallContext } from '../call-context.js';
import type { AppDeps } from '../deps.js';
import type { Outcome, WriteCall } from '../idempotent.js';
import { idempotent } from '../idempotent.js';
import { consolePrincipal } from '../inbox/tasks.js';
import { draftingConnectionRefusal } from './drafting-connection.js';
import { DRAFT_KEYS, refuseKeyUsedElsewhere } from './person-keys.js';
import type { PendingApproval } from './approvals.js';
import { openApproval, ownApproval, pendingStorage } from './approvals.js';

/**
 * agent-access (seed 004) on bookings: an agent reads a booking's state, asks for a write with it
 * as expectedState and gets a pending operation; the person's confirmation on its page runs the
 * write (the agent's `draft` scope is enough); operation_get says how it ended.
 */

const STATE_PREFIX = 'st_';

function stateOf(deps: AppDeps, booking: Booking): string {
  return STATE_PREFIX + deps.digest.ofJson(stateBasis(booking, deps.clock.now())).replace(/^sha256:/, '');
}

export interface BookingState {
  readonly bookingId: string;
  readonly state: string;
  readonly status: string;
  readonly version: number;
}

/** state_get: the state a write on this booking must name as its expectedState. */
export async function bookingState(
  deps: AppDeps,
  principal: Principal,
  bookingId: string,
): Promise<BookingState> {
  const booking = await deps.store.read((tx) => loadOwnBooking(tx, principal, bookingId));
  const { status, version } = stateBasis(booking, deps.clock.now());
  return { bookingId, state: stateOf(deps, booking), status, version };
}

export interface OperationInput {
  readonly action: GatedAction;
  readonly bookingId: string;
  readonly expectedState: string;
  readonly idempotencyKey: string;
}

/**
 * Drafts the write: checks the state the agent saw is the booking's now and opens an approval
 * whose yes runs it, lasting 10 minutes (never past the hold). The key is the person's: the
 * same key with other arguments (another action included), or from another of their
 * connections, is refused.
 */
export async function draftOperation(
  deps: AppDeps,
  principal: Principal,
  input: OperationInput,
  call: WriteCall = {},
): Promise<Outcome<PendingApproval>> {
  requireWriter(principal, 'draft');
  await refuseKeyUsedElsewhere(deps, principal, input.idempotencyKey, DRAFT_KEYS);
  const record = {
    principal,
    // One key space for both drafting writes: a key used to confirm is refused to cancel.
    tool: DRAFT_KEYS,
    key: input.idempotencyKey,
    args: { ...input, connection: principal.connectionId },
    audit: call.audit,
    storage: pendingStorage(principal.tenantId),
  };
  return deps.store.write((tx) =>
    idempotent(deps, tx, record, async () => {
      const booking = await loadOwnBooking(tx, principal, input.bookingId);
      const state = stateOf(deps, booking);
      if (state !== input.expectedState)
        throw new DomainError(
          'VERSION_CONFLICT',
          `Booking ${booking.id} changed since that state was read (expectedState is stale).`,
          { bookingId: booking.id, currentVersion: booking.version },
          'Call state_get again and retry with the new state and a new idempotencyKey.',
        );
      return openApproval(deps, tx, principal, input.action, booking, undefined, {
        windowMs: OPERATION_TTL_MS,
        executes: true,
      });
    }),
  );
}

export interface OperationView {
  readonly approval: Approval;
  readonly status: OperationStatus;
  /** The booking as the write left it (completed), or as it is. */
  readonly booking: BookingSnapshot | null;
}

/** operation_get: the agent's own operation, how it stands, and the booking it acted on. */
export async function operationOf(
  deps: AppDeps,
  principal: Principal,
  operationId: string,
): Promise<OperationView> {
  return deps.store.read(async (tx) => {
    const approval = await ownApproval(tx, principal, operationId);
    if (!approval?.executes)
      throw new DomainError('NOT_FOUND', `No operation ${operationId}.`, { approvalId: operationId });
    const booking = await tx.bookings.get(principal.tenantId, approval.bookingId);
    return {
      approval,
      status: operationStatus(approval, deps.clock.now()),
      booking: booking ? await snapshotOf(tx, booking) : null,
    };
  });
}

/**
 * Runs an approved operation's write, as the person the booking was made for, with the approval
 * the person just gave (and the payment check, if priced), while the connection that drafted it
 * still could. A run that fails keeps the approval
 * and the reason (retry or cancel on the page); one that succeeds spends the approval.
 */
export async function runOperation(
  deps: AppDeps,
  approval: Approval,
  call: CallContext,
): Promise<{ ok: true } | { ok: false; reason: string }> {
  const owner = await deps.store.read(async (tx) => {
    const person = await tx.people.getPerson(approval.subject);
    const tenant = await tx.tenants.getTenant(approval.tenantId);
    return person && tenant ? { person, tenant } : null;
  });
  if (!owner) return failed(deps, approval, 'NOT_FOUND: the person this operation acts for is gone.');
  try {
    const { booking, refusal } = await deps.store.read(async (tx) => ({
      booking: await tx.bookings.get(approval.tenantId, approval.bookingId),
      refusal: await draftingConnectionRefusal(tx, approval, deps.clock.now()),
    }));
    if (!booking) return failed(deps, approval, `NOT_FOUND: no booking ${approval.bookingId}.`);
    if (refusal) return failed(deps, approval, `FORBIDDEN: ${refusal}; nothing was done. Cancel it.`);
    await gatedBookingChange(
      deps,
      operationPrincipal(owner.person, owner.tenant),
      approval.action,
      {
        bookingId: approval.bookingId,
        expectedVersion: approval.intent.version,
        idempotencyKey: `operation:${approval.id}:${deps.ids.newUuid()}`,
        approval: { approvalId: approval.id },
      },
      call,
    );
    await deps.store.write((tx) => tx.approvals.recordFailure(approval.tenantId, approval.id, null));
    return { ok: true };
  } catch (error) {
    if (!isDomainError(error)) throw error;
    return failed(deps, approval, `${error.code}: ${error.message}`);
  }
}

async function failed(deps: AppDeps, approval: Approval, reason: string) {
  await deps.store.write((tx) =>
    tx.approvals.recordFailure(approval.tenantId, approval.id, reason.slice(0, 500)),
  );
  return { ok: false as const, reason };
}

/** The person's own write, run from their confirmation: their role's scopes, never the agent's. */
function operationPrincipal(person: Person, tenant: Parameters<typeof consolePrincipal>[1]): Principal {
  return { ...consolePrincipal(person, tenant), clientId: `console operation · ${person.email}` };
}

/** When an operation ends at the latest (for the agent's answer). */
export const operationExpiresAt = (approval: Approval): Instant => approval.expiresAt;

/** The person tries a failed operation again (the payment has cleared since, say). */
export async function retryOperation(deps: AppDeps, person: Person, operationId: string, call: CallContext) {
  return runOperation(deps, await retryable(deps, person, operationId), call);
}

/** The person gives up on a failed operation: cancelled, nothing runs. */
export async function cancelOperation(deps: AppDeps, person: Person, operationId: string): Promise<void> {
  const approval = await retryable(deps, person, operationId);
  const cancelled = cancelFailed(approval, `person:${person.id}`, deps.clock.now());
  const done = await deps.store.write((tx) => tx.approvals.update(cancelled, 'APPROVED'));
  if (!done) throw new DomainError('INVALID_STATE', 'This operation changed meanwhile; reload it.', {});
}

async function retryable(deps: AppDeps, person: Person, operationId: string): Promise<Approval> {
  if (!mayApprove(person))
    throw new DomainError('FORBIDDEN', 'Only an owner or approver of this tenant may decide approvals.', {});
  const approval = await deps.store.read((tx) => tx.approvals.get(person.tenantId, operationId));
  if (!approval) throw new DomainError('NOT_FOUND', 'This approval link is unknown or was already used.');
  if (!isRetryable(approval, deps.clock.now()))
    throw new DomainError(
      'INVALID_STATE',
      'Only an approved operation whose run failed can be retried or cancelled.',
      {},
    );
  return approval;
}
