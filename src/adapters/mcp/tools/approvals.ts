import { z } from 'zod';
import { getApproval, requestApproval } from '../../../app/approvals/approvals.js';
import { approvalStatuses } from '../../../domain/approval/approval.js';
import { formatInstant } from '../../../domain/time/instant.js';
import { bookingIdInput, idempotencyKey } from '../schemas.js';
import { defineTool } from '../tool-kit.js';
import { pendingApprovalView } from '../views.js';

export const requestApprovalTool = defineTool({
  name: 'request_approval',
  scope: 'draft',
  title: 'Ask a person to approve an action',
  description:
    'Opens an approval for the current state of a booking and one action (confirm_booking or cancel_booking); retry with the same idempotencyKey to get the same approval back. Show the returned summary and approveUrl to the user; after they decide, call the action with approval: { approvalId }. The approval is void if the booking changes meanwhile.',
  kind: 'approval',
  input: z.strictObject({
    bookingId: bookingIdInput,
    action: z.enum(['confirm_booking', 'cancel_booking']),
    idempotencyKey,
  }),
  data: z.object({
    approvalId: z.string(),
    intent: z.record(z.string(), z.unknown()),
    intentHash: z.string(),
    summary: z.record(z.string(), z.unknown()),
    approveUrl: z.string(),
    expiresAt: z.string(),
    cli: z.string(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  async run(ctx, input, call) {
    const { deps, principal } = ctx;
    const outcome = await requestApproval(deps, principal, input, call);
    return { data: pendingApprovalView(outcome.value, ctx.links), replayed: outcome.replayed };
  },
});

export const getApprovalTool = defineTool({
  name: 'get_approval',
  scope: 'read',
  title: 'Read an approval decision',
  description:
    'Reads whether a person approved. Answers ok when APPROVED (then retry the action with approval: { approvalId }); APPROVAL_PENDING while undecided (wait and ask again), APPROVAL_DENIED, APPROVAL_EXPIRED or APPROVAL_USED otherwise.',
  kind: 'approval',
  input: z.strictObject({ approvalId: z.uuid() }),
  data: z.object({
    approval: z.object({
      id: z.string(),
      status: z.enum(approvalStatuses),
      action: z.string(),
      bookingId: z.string(),
      intentHash: z.string(),
      expiresAt: z.string(),
      decidedAt: z.string().nullable(),
    }),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run({ deps, principal }, input) {
    const a = await getApproval(deps, principal, input.approvalId);
    return {
      data: {
        approval: {
          id: a.id,
          status: a.status,
          action: a.action,
          bookingId: a.bookingId,
          intentHash: a.intentHash,
          expiresAt: formatInstant(a.expiresAt),
          decidedAt: a.decidedAt === null ? null : formatInstant(a.decidedAt),
        },
      },
    };
  },
});
