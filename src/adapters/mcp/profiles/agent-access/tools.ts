import { z } from 'zod';
import type { PendingApproval } from '../../../../app/approvals/approvals.js';
import { directOperation } from '../../../../app/approvals/direct-operation.js';
import { bookingState, draftOperation, operationOf } from '../../../../app/approvals/operations.js';
import type { GatedAction } from '../../../../domain/approval/intent.js';
import { formatInstant } from '../../../../domain/time/instant.js';
import { bookingIdInput, bookingOut, idempotencyKey } from '../../schemas.js';
import type { RunContext } from '../../tool-kit.js';
import { defineTool } from '../../tool-kit.js';
import { bookingView } from '../../views.js';

/**
 * agent-access (seed 004) on bookings: writes take the state the agent read (state_get) and a
 * key unique to the person; each becomes a pending operation the person confirms at its
 * confirmationUrl, which runs it; operation_get says how it ended.
 */

const expectedState = z
  .string()
  .min(1)
  .max(100)
  .describe('The state state_get gave for this booking; the write is refused if the booking moved on since.');

const operationOut = z.object({
  status: z.enum(['pending', 'completed', 'cancelled', 'expired']),
  operationId: z.string(),
  action: z.enum(['confirm_booking', 'cancel_booking']),
  bookingId: z.string(),
  confirmationUrl: z
    .string()
    .nullable()
    .describe('Where the person reviews and confirms it (while pending).'),
  expiresAt: z.string(),
  summary: z.record(z.string(), z.unknown()).optional(),
  lastFailure: z.string().nullable().describe('Why the last run failed; the person may retry or cancel.'),
  booking: bookingOut.nullable().describe('The booking as the operation left it (completed), or as it is.'),
});

/** One shape for every operation answer, pending or completed. */
interface OperationAnswer {
  readonly status: z.infer<typeof operationOut>['status'];
  readonly operationId: string;
  readonly action: GatedAction;
  readonly bookingId: string;
  readonly confirmationUrl: string | null;
  readonly expiresAt: string;
  readonly summary?: Record<string, unknown>;
  readonly lastFailure: string | null;
  readonly booking: ReturnType<typeof bookingView> | null;
}

function pendingAnswer(
  ctx: RunContext,
  action: GatedAction,
  bookingId: string,
  pending: PendingApproval,
): OperationAnswer {
  return {
    status: 'pending',
    operationId: pending.approvalId,
    action,
    bookingId,
    confirmationUrl: ctx.links.approveUrl(pending.approvalId),
    expiresAt: formatInstant(pending.expiresAt),
    summary: pending.summary as unknown as Record<string, unknown>,
    lastFailure: null,
    booking: null,
  };
}

export const stateGetTool = defineTool({
  name: 'state_get',
  scope: 'read',
  title: 'Read the state a write must name',
  description:
    'Reads the state of one of your bookings: pass it as expectedState to confirm_booking or cancel_booking, with a new idempotencyKey. After any change, read it again.',
  kind: 'read',
  input: z.strictObject({ bookingId: bookingIdInput }),
  data: z.object({ bookingId: z.string(), state: z.string(), status: z.string(), version: z.int() }),
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run({ deps, principal }, input) {
    return { data: await bookingState(deps, principal, input.bookingId) };
  },
});

function operationTool(action: GatedAction, title: string, description: string) {
  return defineTool({
    name: action,
    scope: 'draft',
    title,
    description,
    kind: 'approval',
    // Strict: a `confirmed: true` (or any field the agent adds to vouch for the person) is refused.
    input: z.strictObject({ bookingId: bookingIdInput, expectedState, idempotencyKey }),
    data: operationOut,
    annotations: { readOnlyHint: false, destructiveHint: action === 'cancel_booking', idempotentHint: true },
    async run(ctx: RunContext, input, call) {
      // The seed's direct policy with `write`: the write runs now, an operation already completed.
      if (ctx.principal.writePolicy === 'direct' && ctx.principal.scopes.includes('write')) {
        const done = await directOperation(
          ctx.deps,
          ctx.principal,
          { action, ...input },
          { traceId: call.traceId, audit: call.audit },
        );
        const data: OperationAnswer = {
          status: 'completed',
          operationId: done.approval.id,
          action,
          bookingId: input.bookingId,
          confirmationUrl: null,
          expiresAt: formatInstant(done.approval.expiresAt),
          lastFailure: null,
          booking: bookingView(done.booking, ctx),
        };
        return { data, replayed: done.replayed };
      }
      const outcome = await draftOperation(
        ctx.deps,
        ctx.principal,
        { action, ...input },
        { audit: call.audit },
      );
      return { data: pendingAnswer(ctx, action, input.bookingId, outcome.value), replayed: outcome.replayed };
    },
  });
}

export const confirmOperationTool = operationTool(
  'confirm_booking',
  'Ask the person to confirm a held booking',
  'Drafts the confirmation of a hold: answers status "pending" with an operationId and a confirmationUrl (under the direct write policy with the write scope it books at once: status "completed"). Give the URL to the person; their confirmation there books it (and checks its payment). Then read operation_get until completed, cancelled or expired. Retry a network failure with the same idempotencyKey, bookingId and expectedState.',
);

export const cancelOperationTool = operationTool(
  'cancel_booking',
  'Ask the person to cancel a booking',
  'Drafts the cancellation of a booking or hold: answers status "pending" with an operationId and a confirmationUrl where the person reviews and confirms it; their confirmation cancels it. Then read operation_get. Under the direct write policy with the write scope it cancels at once: status "completed".',
);

export const operationGetTool = defineTool({
  name: 'operation_get',
  scope: 'read',
  title: 'Read how an operation ended',
  description:
    'Reads one of your operations: pending (the person has not confirmed yet, or its run failed: lastFailure says why), completed (with the booking as it left it), cancelled or expired.',
  kind: 'read',
  input: z.strictObject({ operationId: z.uuid() }),
  data: operationOut,
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run(ctx, input) {
    const { approval, status, booking } = await operationOf(ctx.deps, ctx.principal, input.operationId);
    return {
      data: {
        status,
        operationId: approval.id,
        action: approval.action,
        bookingId: approval.bookingId,
        confirmationUrl: status === 'pending' ? ctx.links.approveUrl(approval.id) : null,
        expiresAt: formatInstant(approval.expiresAt),
        lastFailure: approval.lastFailure ?? null,
        booking: booking ? bookingView(booking, ctx) : null,
      },
    };
  },
});
