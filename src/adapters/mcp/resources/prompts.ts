import type { GetPromptResult, McpServer, ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { printable } from '../input-guard.js';
import type { ToolContext } from '../tool-kit.js';
import { guarded } from './guarded.js';

/**
 * Prompts a person picks in their host. They only ask: every step still goes through the tools,
 * with approval by a person before anything is confirmed or cancelled. What the person typed
 * is quoted, bounded and stripped of control characters.
 */
const quoted = (value: string | undefined, max = 100) => JSON.stringify(printable(value ?? '', max));

/** A duration find_slots takes (5 to 1440 minutes); anything else: an hour. */
function minutesOf(text: string | undefined): number {
  const minutes = /^\d{1,4}$/.test(text ?? '') ? Number(text) : 60;
  return minutes >= 5 && minutes <= 1440 ? minutes : 60;
}

function userSays(text: string): GetPromptResult {
  return { messages: [{ role: 'user', content: { type: 'text', text } }] };
}

const findATime = z.object({
  calendar: z.string().max(100).describe('The calendar id or name (completion lists yours).'),
  durationMinutes: z.string().max(4).optional().describe('How long, in minutes (default 60).'),
  within: z.string().max(100).optional().describe('When, in your words: "next week", "Friday afternoon".'),
  timeZone: z.string().max(64).optional().describe('Show times in this zone (completion lists them).'),
});

const reschedule = z.object({
  bookingId: z.string().max(100).describe('The booking to move (completion lists yours).'),
  newTime: z.string().max(100).optional().describe('Where to, in your words.'),
});

/**
 * Every prompts/get is a request like any other: someone must be calling, it counts against
 * the connection's call budget, and it leaves one audit record naming the prompt.
 */
export function registerPrompts(server: McpServer, ctx: ToolContext): void {
  const answered = (request: ServerContext, name: string, text: () => string) =>
    guarded(server, ctx, request, { method: 'prompts/get', preview: { name } }, async () => userSays(text()));
  server.registerPrompt(
    'find_a_time',
    {
      title: 'Find a time with …',
      description:
        'Find free time on a calendar and hold the slot you pick; nothing is confirmed without you.',
      argsSchema: findATime,
    },
    ({ calendar, durationMinutes, within, timeZone }, request) =>
      answered(request, 'find_a_time', () =>
        [
          `Find a ${minutesOf(durationMinutes)}-minute slot on calendar ${quoted(calendar)}${within ? ` ${quoted(within)}` : ' in the next 7 days'}.`,
          'Use list_calendars if that is a name rather than an id, then find_slots.',
          `Show me up to five options${timeZone ? ` in ${quoted(timeZone, 64)}` : ' in the calendar’s time zone'}, then hold_slot the one I pick.`,
          'Do not confirm it: tell me the hold and how long it lasts, and wait for my approval.',
        ].join('\n'),
      ),
  );
  server.registerPrompt(
    'reschedule_booking',
    {
      title: 'Reschedule my booking',
      description:
        'Move one of your bookings: hold the new time with reschedule_booking, then confirm the move with your approval.',
      argsSchema: reschedule,
    },
    ({ bookingId, newTime }, request) =>
      answered(request, 'reschedule_booking', () =>
        [
          `I want to move booking ${quoted(bookingId)}${newTime ? ` to ${quoted(newTime)}` : ''}.`,
          'Read it with get_booking, find free slots of the same length on the same calendars with find_slots, and show me the options.',
          'Hold the one I pick with reschedule_booking while the old booking stays. Show me its confirmationIntent (old and new time); after I approve, confirm the move with confirm_booking, which cancels the old booking in the same step.',
          'If anything fails, keep the old booking and tell me.',
        ].join('\n'),
      ),
  );
  server.registerPrompt(
    'what_needs_my_approval',
    {
      title: 'What needs my approval',
      description: 'Your held bookings that wait for a person to approve, with how to approve each.',
    },
    (request) =>
      answered(request, 'what_needs_my_approval', () =>
        [
          'List my bookings with status HELD (list_bookings with status HELD, limit 20).',
          'For each, show when, which calendars, for whom and when the hold expires.',
          'If a confirm or cancel already asked for approval, show the approval link it gave (get_approval tells its state). Approve nothing yourself.',
        ].join('\n'),
      ),
  );
}
