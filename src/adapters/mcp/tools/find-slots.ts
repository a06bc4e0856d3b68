import { z } from 'zod';
import { findSlots } from '../../../app/booking/find-slots.js';
import { findSlotsByNeed } from '../../../app/booking/find-slots-by-need.js';
import { invalidArgument } from '../../../domain/errors.js';
import { calendarIdsInput, calendarQueryInput, instantInput, slotOut } from '../schemas.js';
import { defineTool } from '../tool-kit.js';
import { slotsByNeedView, slotsView } from '../views.js';

export const findSlotsTool = defineTool({
  name: 'find_slots',
  scope: 'read',
  title: 'Find free slots',
  description:
    'Finds start times when ALL given calendarIds are open and free for durationMinutes, between from and to (RFC 3339 with offset) — or, with query instead of calendarIds, times free on any ONE calendar whose name, description or tags match the words (each slot names its calendarId). Returns at most limit slots, the total, and nextCursor for the next page (reuse the cursor only with the same query). Nothing is reserved: hold a slot with hold_slot.',
  input: z.strictObject({
    calendarIds: calendarIdsInput.optional(),
    query: calendarQueryInput.optional(),
    from: instantInput,
    to: instantInput,
    durationMinutes: z.int().min(5).max(1440),
    stepMinutes: z
      .int()
      .min(5)
      .max(1440)
      .optional()
      .describe('Spacing of slot starts on the wall clock; default 15.'),
    limit: z.int().min(1).max(100).describe('How many slots to return (1-100).'),
    cursor: z.string().max(512).optional(),
  }),
  data: z.object({
    slots: z.array(slotOut),
    total: z.int(),
    nextCursor: z.string().nullable(),
    calendars: z
      .array(z.object({ id: z.string(), name: z.string(), timeZone: z.string() }))
      .optional()
      .describe('With query: the calendars searched.'),
    calendarsMatched: z.int().optional().describe('With query: how many calendars matched the words.'),
  }),
  kind: 'read',
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run({ deps, principal }, input) {
    const { calendarIds, query, ...search } = input;
    if (query !== undefined && calendarIds !== undefined)
      throw invalidArgument('query', 'give calendarIds or query, not both');
    if (query !== undefined) {
      const found = await findSlotsByNeed(deps, principal, { ...search, query });
      return { data: slotsByNeedView(found), meta: { cache: found.cache } };
    }
    if (calendarIds === undefined)
      throw invalidArgument('calendarIds', 'give the calendars to search (list_calendars), or a query');
    const found = await findSlots(deps, principal, { ...search, calendarIds });
    return { data: slotsView(found), meta: { cache: found.cache } };
  },
});
