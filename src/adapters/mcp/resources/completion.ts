import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import { listCalendars } from '../../../app/calendars/calendars.js';
import { listBookings } from '../../../app/booking/read-bookings.js';
import type { Principal } from '../../../domain/identity/principal.js';
import type { ToolContext } from '../tool-kit.js';
import { guarded } from './guarded.js';
import { BOOKING_TEMPLATE, CALENDAR_TEMPLATE } from './resource-names.js';

const MAX_VALUES = 100;
const TIME_ZONES: readonly string[] = Intl.supportedValuesOf('timeZone');

type Completer = (ctx: ToolContext, principal: Principal, value: string) => Promise<readonly string[]>;

const startsWith = (value: string) => (candidate: string) =>
  candidate.toLowerCase().startsWith(value.toLowerCase());

/** The caller's calendars whose id or name starts with what was typed (ids are what tools take). */
const calendarIds: Completer = async (ctx, principal, value) => {
  const page = await listCalendars(ctx.deps, principal, { limit: 100 });
  const match = startsWith(value);
  return page.calendars.filter((c) => match(c.id) || match(c.name)).map((c) => c.id);
};

/** The caller's own bookings, by id or reference. */
const bookingIds: Completer = async (ctx, principal, value) => {
  const page = await listBookings(ctx.deps, principal, { limit: 100 });
  const match = startsWith(value);
  return page.bookings
    .filter(({ booking }) => match(booking.id) || match(booking.reference))
    .map(({ booking }) => booking.id);
};

const timeZones: Completer = async (_ctx, _principal, value) => {
  const match = startsWith(value);
  // "berlin" finds Europe/Berlin too: match the city as well as the whole name.
  return TIME_ZONES.filter((zone) => match(zone) || match(zone.split('/').at(-1)!));
};

/** Which argument of which resource template or prompt completes how. */
const COMPLETERS: Record<string, Record<string, Completer>> = {
  [`resource:${CALENDAR_TEMPLATE}`]: { id: calendarIds },
  [`resource:${BOOKING_TEMPLATE}`]: { id: bookingIds },
  'prompt:find_a_time': { calendar: calendarIds, timeZone: timeZones },
  'prompt:reschedule_booking': { bookingId: bookingIds },
};

interface CompleteParams {
  readonly ref: { readonly type: string; readonly name?: string; readonly uri?: string };
  readonly argument: { readonly name: string; readonly value: string };
}

/**
 * completion/complete for the templates and prompts, per caller (the SDK's completers do not
 * know who asks). A reference or argument with nothing to complete answers no values rather
 * than an error: there is nothing to suggest, and nothing is revealed.
 */
export function registerCompletion(server: McpServer, ctx: ToolContext): void {
  server.server.registerCapabilities({ completions: {} });
  server.server.setRequestHandler('completion/complete', (request, context: ServerContext) => {
    const { ref, argument } = request.params as CompleteParams;
    const key = ref.type === 'ref/resource' ? `resource:${String(ref.uri)}` : `prompt:${String(ref.name)}`;
    // Own properties only: `constructor` or `__proto__` name nothing here.
    const forRef = Object.hasOwn(COMPLETERS, key) ? COMPLETERS[key]! : {};
    const completer = Object.hasOwn(forRef, argument.name) ? forRef[argument.name] : undefined;
    const value = String(argument.value).slice(0, 200);
    const call = {
      method: 'completion/complete',
      preview: { ref: key.slice(0, 120), argument: String(argument.name).slice(0, 64) },
    };
    return guarded(server, ctx, context, call, async (principal) => {
      const all = completer ? await completer(ctx, principal, value) : [];
      return {
        completion: { values: all.slice(0, MAX_VALUES), total: all.length, hasMore: all.length > MAX_VALUES },
      };
    });
  });
}
