import { z } from 'zod';
import { checkAvailability, MAX_CHECKED_TIMES } from '../../../app/booking/check-availability.js';
import { formatInstant, formatLocal } from '../../../domain/time/instant.js';
import { calendarIdsInput, instantOut } from '../schemas.js';
import { defineTool } from '../tool-kit.js';

export const checkAvailabilityTool = defineTool({
  name: 'check_availability',
  scope: 'read',
  title: 'Check times on a date',
  description: `Answers, for each local time asked (1-${MAX_CHECKED_TIMES}, "HH:MM" on a 5-minute grid) on one date ("YYYY-MM-DD", in the first calendar's time zone), whether ALL given calendars are free for durationMinutes (default 30), or why not: closed, taken, rules (notice, horizon, limits, buffers) or past. A quick check for a person naming times; find_slots searches a range. Nothing is reserved: hold a free time with hold_slot.`,
  input: z.strictObject({
    calendarIds: calendarIdsInput,
    date: z.string().max(10).describe('The local date, YYYY-MM-DD, in the first calendar’s time zone.'),
    times: z
      .array(z.string().max(5))
      .min(1)
      .max(MAX_CHECKED_TIMES)
      .describe('Local times "HH:MM" on a 5-minute grid, e.g. ["09:00", "11:00", "16:30"].'),
    durationMinutes: z
      .int()
      .min(5)
      .max(1440)
      .optional()
      .describe('How long each booking would last; default 30.'),
  }),
  data: z.object({
    date: z.string(),
    timeZone: z.string(),
    durationMinutes: z.int(),
    times: z.array(
      z.object({
        time: z.string(),
        start: instantOut,
        end: instantOut,
        startLocal: z.string(),
        free: z.boolean(),
        reason: z.enum(['closed', 'taken', 'rules', 'past']).nullable(),
      }),
    ),
  }),
  kind: 'read',
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run({ deps, principal }, input) {
    const found = await checkAvailability(deps, principal, input);
    return {
      data: {
        date: found.date,
        timeZone: found.timeZone,
        durationMinutes: found.durationMinutes,
        times: found.times.map((t) => ({
          time: t.time,
          start: formatInstant(t.start),
          end: formatInstant(t.end),
          startLocal: formatLocal(t.start, found.timeZone),
          free: t.free,
          reason: t.reason,
        })),
      },
      // Each named time is checked against the bookings as they are now, never the slot cache.
      meta: { cache: 'BYPASS' },
    };
  },
});
