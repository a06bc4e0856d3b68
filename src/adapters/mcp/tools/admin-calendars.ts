import { z } from 'zod';
import { createCalendar, setAvailability, setBookingRules } from '../../../app/calendars/calendars.js';
import {
  calendarOut,
  dateOverrides,
  idempotencyKey,
  moneySchema,
  availabilitySchema,
  bookingRulesFields,
  weeklyHours,
} from '../schemas.js';
import { defineTool } from '../tool-kit.js';
import { calendarView } from '../views.js';

export const createCalendarTool = defineTool({
  name: 'create_calendar',
  scope: 'sensitive',
  title: 'Create a calendar (admin)',
  description:
    'Creates a bookable calendar with an IANA time zone (e.g. "Europe/Berlin"), optional price per booking, weekly hours, description and tags. Admin only.',
  input: z.strictObject({
    name: z.string().min(1).max(200),
    timeZone: z.string().min(1).max(64),
    price: moneySchema.optional(),
    availability: availabilitySchema.optional(),
    description: z
      .string()
      .max(1000)
      .optional()
      .describe('What it is, in words agents search by (find_slots and list_calendars query).'),
    tags: z
      .array(z.string().min(1).max(50))
      .max(20)
      .optional()
      .describe('Tags and specialties, e.g. ["dermatology", "French"].'),
    idempotencyKey,
  }),
  data: z.object({ calendar: calendarOut }),
  kind: 'admin',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  async run({ deps, principal }, input, call) {
    const outcome = await createCalendar(deps, principal, input, call);
    return { data: { calendar: calendarView(outcome.value) }, replayed: outcome.replayed };
  },
});

export const setAvailabilityTool = defineTool({
  name: 'set_availability',
  scope: 'sensitive',
  title: 'Set calendar availability (admin)',
  description:
    'Replaces a calendar whole week of opening hours and all its date overrides (closed days or other hours). Wall-clock times in the calendar time zone. Existing bookings are kept. Admin only.',
  input: z.strictObject({
    calendarId: z.string().min(1).max(100),
    weekly: weeklyHours,
    overrides: dateOverrides,
    idempotencyKey,
  }),
  data: z.object({ calendar: calendarOut }),
  kind: 'admin',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  async run({ deps, principal }, input, call) {
    const outcome = await setAvailability(
      deps,
      principal,
      {
        calendarId: input.calendarId,
        availability: { weekly: input.weekly, overrides: input.overrides },
        idempotencyKey: input.idempotencyKey,
      },
      call,
    );
    return { data: { calendar: calendarView(outcome.value) }, replayed: outcome.replayed };
  },
});

export const setBookingRulesTool = defineTool({
  name: 'set_booking_rules',
  scope: 'sensitive',
  title: 'Set calendar booking rules (admin)',
  description:
    'Replaces a calendar booking rules whole (a rule left out takes its default): buffers, minimum notice, how far ahead, start grid, allowed lengths, limits per day and week. find_slots and hold_slot apply them; a hold that breaks one gets OUTSIDE_BOOKING_RULES naming it. Existing bookings are kept. Admin only.',
  input: z.strictObject({
    calendarId: z.string().min(1).max(100),
    ...bookingRulesFields,
    idempotencyKey,
  }),
  data: z.object({ calendar: calendarOut }),
  kind: 'admin',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  async run({ deps, principal }, input, call) {
    const { calendarId, idempotencyKey: key, ...rules } = input;
    const outcome = await setBookingRules(deps, principal, { calendarId, rules, idempotencyKey: key }, call);
    return { data: { calendar: calendarView(outcome.value) }, replayed: outcome.replayed };
  },
});
