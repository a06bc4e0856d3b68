import { z } from 'zod';
import { changeSetIntentOf, newMoneyOf } from '../../../app/booking/change-set-intent.js';
import type { ChangeSetView } from '../../../app/booking/change-sets.js';
import { proposeChanges } from '../../../app/booking/change-sets.js';
import { abandonChanges, confirmChanges } from '../../../app/booking/commit-changes.js';
import { effectiveStatus } from '../../../domain/booking/booking.js';
import { MAX_CHANGES } from '../../../domain/booking/change-set.js';
import { formatInstant } from '../../../domain/time/instant.js';
import {
  approvalProof,
  bookingIdInput,
  calendarIdsInput,
  customerInput,
  expectedVersion,
  humanApprovalInput,
  idempotencyKey,
  instantInput,
  moneySchema,
} from '../schemas.js';
import type { RunContext } from '../tool-kit.js';
import { defineTool } from '../tool-kit.js';

// One flat shape (model APIs refuse oneOf): which fields a kind needs is checked by the use case.
const changeInput = z.strictObject({
  kind: z
    .enum(['hold', 'move', 'cancel'])
    .describe('hold: a new booking; move: a booking to a new time; cancel: end one.'),
  bookingId: bookingIdInput.optional().describe('move, cancel: the confirmed booking.'),
  expectedVersion: expectedVersion.optional(),
  calendarIds: calendarIdsInput
    .optional()
    .describe('hold: its calendars; move: the calendars after the move (default its own).'),
  start: instantInput.optional(),
  end: instantInput.optional(),
  customer: customerInput.optional(),
  label: z.string().max(200).optional(),
});

const changeSetOut = z.object({
  changeSetId: z.string(),
  status: z.enum(['PROPOSED', 'CONFIRMED', 'ABANDONED']),
  version: z.int(),
  changes: z.array(
    z.object({
      kind: z.enum(['hold', 'move', 'cancel']),
      bookingId: z.string().nullable().describe('The booking a move or cancellation ends.'),
      holdId: z.string().nullable().describe('The booking that stands for the new time (hold, move).'),
      calendarIds: z.array(z.string()),
      start: z.string(),
      end: z.string(),
      from: z.object({ calendarIds: z.array(z.string()), start: z.string(), end: z.string() }).nullable(),
      heldNow: z
        .boolean()
        .describe('false: the new time is another change’s old one; the commit takes it over.'),
    }),
  ),
  bookings: z.array(
    z.object({
      id: z.string(),
      reference: z.string(),
      status: z.string(),
      version: z.int(),
      start: z.string(),
      end: z.string(),
    }),
  ),
  price: moneySchema.nullable().describe('What the new holds cost together, paid once (paymentUrl).'),
  paymentUrl: z.string().nullable(),
  confirmationIntent: z
    .object({ intent: z.record(z.string(), z.unknown()), intentHash: z.string() })
    .nullable()
    .describe('While PROPOSED: exactly what confirm_changes will do, and its hash.'),
});

function changeSetView({ set, bookings }: ChangeSetView, ctx: RunContext) {
  const now = ctx.deps.clock.now();
  const byId = new Map(bookings.map((b) => [b.id, b]));
  const price = newMoneyOf(set, byId);
  const intent = set.status === 'PROPOSED' ? changeSetIntentOf(set, byId) : null;
  return {
    changeSetId: set.id,
    status: set.status,
    version: set.version,
    changes: set.changes.map((c) => ({
      kind: c.kind,
      bookingId: c.targetId,
      holdId: c.holdId,
      calendarIds: [...c.calendarIds],
      start: formatInstant(c.start),
      end: formatInstant(c.end),
      from: c.from
        ? {
            calendarIds: [...c.from.calendarIds],
            start: formatInstant(c.from.start),
            end: formatInstant(c.from.end),
          }
        : null,
      heldNow: !c.deferred,
    })),
    bookings: bookings.map((b) => ({
      id: b.id,
      reference: b.reference,
      status: effectiveStatus(b, now),
      version: b.version,
      start: formatInstant(b.start),
      end: formatInstant(b.end),
    })),
    price,
    paymentUrl: price === null ? null : ctx.links.paymentUrl(set.id),
    confirmationIntent: intent && { intent, intentHash: ctx.deps.digest.ofJson(intent) },
  };
}

export const proposeChangesTool = defineTool({
  name: 'propose_changes',
  scope: 'draft',
  title: 'Propose several changes as one',
  description:
    'Bundles new holds, moves and cancellations of your bookings (e.g. swap two bookings, move a day to another calendar) into one change set: every new time is held now (a time another change gives up is taken over at the commit). Nothing happens until confirm_changes, which a person approves once for the whole set; abandon_changes gives the holds back.',
  input: z.strictObject({
    changes: z.array(changeInput).min(1).max(MAX_CHANGES),
    idempotencyKey,
  }),
  data: changeSetOut,
  kind: 'write',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  async run(ctx, input, call) {
    const outcome = await proposeChanges(ctx.deps, ctx.principal, input, call);
    return { data: changeSetView(outcome.value, ctx), replayed: outcome.replayed };
  },
});

export const confirmChangesTool = defineTool({
  name: 'confirm_changes',
  scope: 'write',
  title: 'Confirm a change set',
  description:
    'Commits every change of a proposed set in one transaction, or none. A person must approve the whole set: without proof the call fails with APPROVAL_REQUIRED (show details.summary and approveUrl), then retry with approval: { approvalId }. New priced holds need their sum paid first (paymentUrl). Pass the set version and a fresh UUID idempotencyKey.',
  input: z.strictObject({
    changeSetId: z.string().min(1).max(100),
    expectedVersion,
    idempotencyKey,
    approval: approvalProof.optional(),
    humanApproval: humanApprovalInput.optional(),
  }),
  data: changeSetOut,
  kind: 'write',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  async run(ctx, input, call) {
    const outcome = await confirmChanges(ctx.deps, ctx.principal, input, {
      traceId: call.traceId,
      audit: call.audit,
    });
    return { data: changeSetView(outcome.value, ctx), replayed: outcome.replayed };
  },
});

export const abandonChangesTool = defineTool({
  name: 'abandon_changes',
  scope: 'draft',
  title: 'Abandon a change set',
  description: 'Gives back every time a proposed change set holds; no booking it names is touched.',
  input: z.strictObject({ changeSetId: z.string().min(1).max(100), expectedVersion, idempotencyKey }),
  data: changeSetOut,
  kind: 'write',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  async run(ctx, input, call) {
    const outcome = await abandonChanges(ctx.deps, ctx.principal, input, call);
    return { data: changeSetView(outcome.value, ctx), replayed: outcome.replayed };
  },
});
