import type { ServerContext, ToolAnnotations } from '@modelcontextprotocol/server';
import { CLIENT_CAPABILITIES_META_KEY, inputRequired, inputResponse } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { UserApprovalNeeded } from '../../../app/approvals/approval-proof.js';
import type { PendingApproval } from '../../../app/approvals/approvals.js';
import type { CallContext } from '../../../app/call-context.js';
import { gatedBookingChange } from '../../../app/booking/gated-booking.js';
import type { GatedAction } from '../../../domain/approval/intent.js';
import {
  approvalProof,
  bookingIdInput,
  bookingOut,
  expectedVersion,
  humanApprovalInput,
  idempotencyKey,
} from '../schemas.js';
import type { ApprovalState, RunContext } from '../tool-kit.js';
import { defineTool } from '../tool-kit.js';
import { bookingView } from '../views.js';

const APPROVAL_KEY = 'approval';
const approvalForm = z.object({ approve: z.boolean().describe('Approve exactly this action?') });

/** Only 2026-07-28 clients that declared elicitation can be asked mid-call; 2025-era HTTP has no channel back. */
function canElicit(request: ServerContext): boolean {
  const envelope = request.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { elicitation?: unknown } | undefined;
  return capabilities?.elicitation !== undefined;
}

/** The user's answer on a re-entry, trusted only through the sealed requestState. */
function elicitationOf(request: ServerContext): CallContext['elicitation'] {
  if (!canElicit(request)) return undefined;
  const state = request.mcpReq.requestState<ApprovalState>();
  const response = inputResponse(request.mcpReq.inputResponses, APPROVAL_KEY);
  if (!state || typeof state !== 'object' || response.kind !== 'elicit') return {};
  const approved = response.action === 'accept' && response.content?.approve === true;
  return { answer: { approvalId: state.approvalId, intentHash: state.intentHash, approved } };
}

const seriesScope = z
  .enum(['this', 'following'])
  .describe(
    'For an occurrence of a series (seriesId): this one only (default), or this one and every later one, in one approval.',
  );

const gatedInput = z.strictObject({
  bookingId: bookingIdInput,
  expectedVersion,
  idempotencyKey,
  approval: approvalProof.optional(),
  humanApproval: humanApprovalInput.optional(),
});

function gatedTool(action: GatedAction, title: string, description: string, annotations: ToolAnnotations) {
  return defineTool({
    name: action,
    scope: 'write',
    title,
    description,
    kind: 'write',
    // Only a cancellation has a scope: a series is always confirmed whole.
    input: action === 'cancel_booking' ? gatedInput.extend({ scope: seriesScope.optional() }) : gatedInput,
    data: z.object({ booking: bookingOut }),
    annotations: { readOnlyHint: false, idempotentHint: true, ...annotations },
    async run(ctx: RunContext, input, call) {
      const { deps, principal } = ctx;
      try {
        const outcome = await gatedBookingChange(deps, principal, action, input, {
          traceId: call.traceId,
          audit: call.audit,
          // Over HTTP the client is whoever holds a token — the agent itself could answer; only
          // the host that started a stdio server stands between the model and the person.
          elicitation: ctx.transport === 'stdio' ? elicitationOf(call.request) : undefined,
        });
        return { data: { booking: bookingView(outcome.value, ctx) }, replayed: outcome.replayed };
      } catch (error) {
        if (!(error instanceof UserApprovalNeeded)) throw error;
        const { pending } = error;
        const names = pending.summary.calendars.map((c) => c.name).join(', ');
        const lines = pending.summary.occurrences
          ? pending.summary.occurrences.map((o, i) => `${i + 1}. ${names}: ${o.when}`)
          : pending.summary.calendars.map((c) => `${c.name}: ${c.start} – ${c.end} (${c.timeZone})`);
        const moved = pending.summary.movedFrom;
        const money = moved
          ? `\nMoves ${moved.reference} away from ${moved.startUtc} – ${moved.endUtc} (UTC); nothing new is charged`
          : pending.summary.amount === null
            ? ''
            : `\nAmount: ${pending.summary.amount} ${pending.summary.currency}`;
        return {
          inputRequired: inputRequired({
            inputRequests: {
              [APPROVAL_KEY]: inputRequired.elicit({
                message: `${pending.summary.action} ${pending.summary.reference}\n${consequenceLines(pending.summary)}\n${lines.join('\n')}${money}\nIntent hash: ${pending.intentHash}`,
                requestedSchema: approvalForm,
              }),
            },
            requestState: await ctx.stateCodec.mint(
              { approvalId: pending.approvalId, intentHash: pending.intentHash },
              call.request,
            ),
          }),
        };
      }
    },
  });
}

/** What approving does, as the approval page says it (summaries stored by older releases lack it). */
function consequenceLines(summary: PendingApproval['summary']): string {
  const said = summary.consequence as PendingApproval['summary']['consequence'] | undefined;
  return said ? `${said.time}\n${said.money}\n${said.customer}` : '';
}

export const confirmBookingTool = gatedTool(
  'confirm_booking',
  'Confirm a held booking',
  'Turns a HELD booking (or every occurrence of a held series) into CONFIRMED before its hold expires. A person must approve this exact booking: without proof the call fails with APPROVAL_REQUIRED and details to show the user (approveUrl); retry with approval: { approvalId } once they decided. Priced bookings also need the payment to have cleared (PAYMENT_PENDING otherwise). Pass the version you last read and a fresh UUID idempotencyKey.',
  { destructiveHint: false },
);

export const cancelBookingTool = gatedTool(
  'cancel_booking',
  'Cancel a confirmed booking',
  'Cancels a CONFIRMED booking and frees its time (a series occurrence: scope following ends the later ones too); needs a person to approve, like confirm_booking. Pass the version you last read and a fresh UUID idempotencyKey. (For a HELD booking use release_hold.)',
  { destructiveHint: true },
);
