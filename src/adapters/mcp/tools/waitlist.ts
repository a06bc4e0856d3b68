import { z } from 'zod';
import type { WaitlistView } from '../../../app/booking/waitlist.js';
import { joinWaitlist, leaveWaitlist } from '../../../app/booking/waitlist.js';
import { formatInstant } from '../../../domain/time/instant.js';
import { waitlistUri } from '../resources/resource-names.js';
import { calendarIdsInput, idempotencyKey, instantInput, instantOut } from '../schemas.js';
import { defineTool } from '../tool-kit.js';

const entryOut = z.object({
  id: z.string(),
  status: z
    .enum(['WAITING', 'OFFERED', 'ACCEPTED', 'LAPSED', 'LEFT', 'EXPIRED'])
    .describe(
      'WAITING in the queue; OFFERED: offerBookingId is a hold made for you — confirm it with confirm_booking before offerExpiresAt or it passes to the next; ACCEPTED, LAPSED, LEFT or EXPIRED: done.',
    ),
  position: z.int().nullable().describe('WAITING: 1 = next to be offered among entries for these calendars.'),
  calendarIds: z.array(z.string()),
  durationMinutes: z.int(),
  earliest: instantOut,
  latest: instantOut,
  offerBookingId: z.string().nullable(),
  offerExpiresAt: instantOut.nullable(),
  resourceUri: z
    .string()
    .describe(
      'Listen to it (subscriptions/listen, resourceSubscriptions) to be told the moment it is offered.',
    ),
});

export function waitlistView({ entry, position }: WaitlistView) {
  return {
    id: entry.id,
    status: entry.status,
    position,
    calendarIds: [...entry.calendarIds],
    durationMinutes: entry.durationMinutes,
    earliest: formatInstant(entry.earliest),
    latest: formatInstant(entry.latest),
    offerBookingId: entry.offerBookingId,
    offerExpiresAt: entry.offerExpiresAt === null ? null : formatInstant(entry.offerExpiresAt),
    resourceUri: waitlistUri(entry.id),
  };
}

export const joinWaitlistTool = defineTool({
  name: 'join_waitlist',
  scope: 'draft',
  title: 'Join the waitlist',
  description:
    'When no time fits: wait for durationMinutes free on every listed calendar between earliest and latest. The first entry that fits freed time (a cancellation, an expired hold, longer hours) gets it HELD for you — an offer: status OFFERED with offerBookingId, announced on resourceUri (subscriptions/listen). Confirm it with confirm_booking before offerExpiresAt, or it passes to the next entry. First come, first offered. Send a fresh UUID idempotencyKey.',
  input: z.strictObject({
    calendarIds: calendarIdsInput,
    durationMinutes: z.int().min(5).max(1440).describe('Length of the wanted time, minutes.'),
    earliest: instantInput,
    latest: instantInput.describe(
      'Date-time with its offset (Z or ±HH:MM), e.g. 2026-12-03T18:00:00+01:00: the wanted time must end by then.',
    ),
    label: z.string().max(200).optional().describe('Short title for the booking it becomes.'),
    idempotencyKey,
  }),
  data: z.object({ entry: entryOut }),
  kind: 'write',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  async run({ deps, principal }, input, call) {
    const outcome = await joinWaitlist(deps, principal, input, call);
    return { data: { entry: waitlistView(outcome.value) }, replayed: outcome.replayed };
  },
});

export const leaveWaitlistTool = defineTool({
  name: 'leave_waitlist',
  scope: 'draft',
  title: 'Leave the waitlist',
  description:
    'Takes your entry off the waitlist (status LEFT); an offer you have not confirmed is released and passes to the next entry.',
  input: z.strictObject({ entryId: z.string().min(1).max(100) }),
  data: z.object({ entry: entryOut }),
  kind: 'write',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  async run({ deps, principal }, input) {
    return { data: { entry: waitlistView(await leaveWaitlist(deps, principal, input.entryId)) } };
  },
});
