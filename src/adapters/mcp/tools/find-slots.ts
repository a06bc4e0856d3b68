import { z } from 'zod';
import { findSlots } from '../../../app/booking/find-slots.js';
import { calendarIdsInput, instantInput, slotOut } from '../schemas.js';
import { defineTool } from '../tool-kit.js';
import { slotsView } from '../views.js';

export const findSlotsTool = defineTool({
  name: 'find_slots',
  scope: 'read',
  title: 'Find free slots',
  description:
    'Finds start times when ALL given calendars are open and free for durationMinutes, between from and to (RFC 3339 with offset). Returns at most limit slots, the total, and nextCursor for the next page (reuse the cursor only with the same query). Nothing is reserved: hold a slot with hold_slot.',
  input: z.strictObject({
    calendarIds: calendarIdsInput,
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
  data: z.object({ slots: z.array(slotOut), total: z.int(), nextCursor: z.string().nullable() }),
  kind: 'read',
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run({ deps, principal }, input) {
    const found = await findSlots(deps, principal, input);
    return { data: slotsView(found), meta: { cache: found.cache } };
  },
});
