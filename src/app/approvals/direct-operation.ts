import type { Approval } from '../../domain/approval/approval.js';
import { DomainError, isDomainError } from '../../domain/errors.js';
import type { Principal } from '../../domain/identity/principal.js';
import { gatedBookingChange } from '../booking/gated-booking.js';
import type { BookingSnapshot } from '../booking/snapshot.js';
import type { CallContext } from '../call-context.js';
import type { AppDeps } from '../deps.js';
import { ownApproval } from './approvals.js';
import type { OperationInput } from './operations.js';
import { draftOperation } from './operations.js';

/**
 * agent-access (seed 004) under the `direct` write policy with `write` (“执行普通写入”): the write
 * runs at once. It is drafted first, so it is checked as a draft is (the state the agent read, the
 * person's one key space), and recorded as an operation already completed by that policy, which
 * operation_get reads. A write that fails cancels its operation with the reason and answers the
 * error; the same key again answers the same end, never a second attempt.
 */
export async function directOperation(
  deps: AppDeps,
  principal: Principal,
  input: OperationInput,
  call: CallContext,
): Promise<{ approval: Approval; booking: BookingSnapshot; replayed: boolean }> {
  const drafted = await draftOperation(deps, principal, input, { audit: call.audit });
  const approval = await deps.store.read((tx) => ownApproval(tx, principal, drafted.value.approvalId));
  if (!approval) throw new DomainError('NOT_FOUND', `No operation ${drafted.value.approvalId}.`, {});
  if (approval.status === 'DENIED')
    throw new DomainError(
      'INVALID_STATE',
      `This key's direct write failed: ${approval.burnedReason ?? 'cancelled'}.`,
      { approvalId: approval.id },
      'Read the state with state_get again and retry with a new idempotencyKey.',
    );
  try {
    const done = await gatedBookingChange(
      deps,
      principal,
      approval.action,
      {
        bookingId: approval.bookingId,
        expectedVersion: approval.intent.version,
        idempotencyKey: `direct:${approval.id}`,
      },
      call,
    );
    const now = deps.clock.now();
    const used: Approval = {
      ...approval,
      status: 'USED',
      decidedAt: now,
      decidedBy: `policy:direct ${principal.connectionId}`,
    };
    // A replay finds it used already; the first run marks it so.
    if (approval.status === 'PENDING') await deps.store.write((tx) => tx.approvals.update(used, 'PENDING'));
    return { approval: used, booking: done.value, replayed: drafted.replayed };
  } catch (error) {
    if (!isDomainError(error)) throw error;
    const reason = `${error.code}: ${error.message}`.slice(0, 500);
    await deps.store.write((tx) =>
      tx.approvals.update(
        {
          ...approval,
          status: 'DENIED',
          decidedAt: deps.clock.now(),
          decidedBy: 'policy:direct',
          burnedReason: reason,
        },
        'PENDING',
      ),
    );
    throw error;
  }
}
