import { z } from 'zod';
import { holdSeries } from '../../../app/booking/hold-series.js';
import { seriesConfirmIntentOf } from '../../../domain/approval/intent.js';
import { MAX_OCCURRENCES, seriesPrice } from '../../../domain/booking/series.js';
import {
  bookingOut,
  calendarIdsInput,
  customerInput,
  idempotencyKey,
  instantInput,
  moneySchema,
} from '../schemas.js';
import { defineTool } from '../tool-kit.js';
import { bookingView } from '../views.js';

const repeatInput = z
  .strictObject({
    frequency: z
      .enum(['weekly', 'daily'])
      .describe('weekly: every `interval` weeks; daily: every `interval` days.'),
    interval: z.int().min(1).max(56).default(1),
    count: z.int().min(2).max(MAX_OCCURRENCES).describe('How many occurrences, the first included.'),
  })
  .describe('Repeats at the same local wall-clock time in the first calendar’s zone (across DST changes).');

const insteadInput = z
  .array(
    z.strictObject({
      occurrence: z.int().min(1).max(MAX_OCCURRENCES).describe('Which occurrence, 1 for the first.'),
      start: instantInput,
      end: instantInput,
      calendarIds: calendarIdsInput.optional(),
    }),
  )
  .max(MAX_OCCURRENCES)
  .describe(
    'Times the person chose for occurrences that were taken (from details.occurrences[].alternatives).',
  );

export const holdSeriesTool = defineTool({
  name: 'hold_series',
  scope: 'draft',
  title: 'Hold a recurring series',
  description:
    'Holds every occurrence of a repeating booking (start/end are the first; weekly or every k days, same local time across DST) at once, or none. If some are taken you get SLOT_UNAVAILABLE with details.occurrences, each with alternatives: show them, then call again (new idempotencyKey) with instead. Then confirm_booking on any occurrence confirms the whole series: one approval, one payment (the sum, at paymentUrl).',
  input: z.strictObject({
    calendarIds: calendarIdsInput,
    start: instantInput,
    end: instantInput,
    repeat: repeatInput,
    instead: insteadInput.optional(),
    customer: customerInput.optional(),
    label: z.string().max(200).optional().describe('Short title for every occurrence.'),
    idempotencyKey,
  }),
  data: z.object({
    seriesId: z.string(),
    occurrences: z.array(bookingOut),
    price: moneySchema.nullable().describe('The series’ one price: the sum of its occurrences.'),
    paymentUrl: z.string().nullable().describe('Where the customer pays the whole series once.'),
    confirmationIntent: z
      .object({ intent: z.record(z.string(), z.unknown()), intentHash: z.string() })
      .describe('Exactly what confirm_booking will do to the series, and its hash: show it to the user.'),
  }),
  kind: 'write',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  async run(ctx, input, call) {
    const { deps, principal, links } = ctx;
    const outcome = await holdSeries(deps, principal, input, call);
    const { seriesId, occurrences } = outcome.value;
    const bookings = occurrences.map((o) => o.booking);
    const price = seriesPrice(bookings);
    const intent = seriesConfirmIntentOf(seriesId, bookings);
    return {
      data: {
        seriesId,
        occurrences: occurrences.map((o) => bookingView(o, ctx)),
        price,
        paymentUrl: price === null ? null : links.paymentUrl(seriesId),
        confirmationIntent: { intent, intentHash: deps.digest.ofJson(intent) },
      },
      replayed: outcome.replayed,
    };
  },
});
