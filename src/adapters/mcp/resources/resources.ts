import type { McpServer, ReadResourceResult } from '@modelcontextprotocol/server';
import { ResourceTemplate } from '@modelcontextprotocol/server';
import { getCalendar, listCalendars } from '../../../app/calendars/calendars.js';
import { getBooking, listBookings } from '../../../app/booking/read-bookings.js';
import { ownReceipt } from '../../../app/booking/receipts.js';
import { receiptKeysUrl } from '../../../domain/booking/receipt.js';
import type { Principal } from '../../../domain/identity/principal.js';
import type { ToolContext } from '../tool-kit.js';
import { stepUpTo } from '../tool-kit.js';
import { bookingView, calendarView } from '../views.js';
import { registerCompletion } from './completion.js';
import { guarded } from './guarded.js';
import type { ListPosition } from './list-cursor.js';
import { readListCursor, writeListCursor } from './list-cursor.js';
import {
  BOOKING_TEMPLATE,
  bookingUri,
  CALENDAR_TEMPLATE,
  calendarUri,
  RECEIPT_TEMPLATE,
  WAITLIST_TEMPLATE,
} from './resource-names.js';
import { waitlistView } from '../tools/waitlist.js';
import { getWaitlistEntry } from '../../../app/booking/waitlist.js';

const PAGE = 50;

/** Reads change as bookings do: nothing is fresh for long, and it is this caller's view alone. */
const PRIVATE_NOW = { ttlMs: 0, cacheScope: 'private' } as const;
/** Lists: a short reuse for one caller saves a host re-listing on every turn. */
const LIST_HINT = { ttlMs: 30_000, cacheScope: 'private' } as const;

const readOf = (uri: URL) => ({
  method: 'resources/read',
  preview: { uri: uri.href.slice(0, 120) },
  uri: uri.href,
});

function json(uri: URL, value: unknown): ReadResourceResult {
  return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(value) }] };
}

/**
 * Calendars and bookings as resources a host can show or attach: read through the same use
 * cases as get_booking and list_calendars (same scope, same tenant and owner rules, contact
 * details masked without `sensitive`), listed a page at a time.
 */
export function registerResources(server: McpServer, ctx: ToolContext): void {
  const read = stepUpTo('read');
  server.registerResource(
    'calendar',
    new ResourceTemplate(CALENDAR_TEMPLATE, { list: undefined }),
    {
      title: 'Calendar',
      description: 'A calendar: its name, time zone, price and opening hours.',
      mimeType: 'application/json',
      cacheHint: PRIVATE_NOW,
      scopeChallenge: read,
    },
    (uri, variables, request) =>
      guarded(server, ctx, request, readOf(uri), async (principal) =>
        json(uri, { calendar: calendarView(await getCalendar(ctx.deps, principal, String(variables.id))) }),
      ),
  );
  server.registerResource(
    'booking',
    new ResourceTemplate(BOOKING_TEMPLATE, { list: undefined }),
    {
      title: 'Booking',
      description: 'One of your bookings: status, version, times in each calendar’s zone, customer, payment.',
      mimeType: 'application/json',
      cacheHint: PRIVATE_NOW,
      scopeChallenge: read,
    },
    (uri, variables, request) =>
      guarded(server, ctx, request, readOf(uri), async (principal) => {
        const snapshot = await getBooking(ctx.deps, principal, String(variables.id));
        return json(uri, { booking: bookingView(snapshot, { deps: ctx.deps, links: ctx.links, principal }) });
      }),
  );
  server.registerResource(
    'receipt',
    new ResourceTemplate(RECEIPT_TEMPLATE, { list: undefined }),
    {
      title: 'Booking receipt',
      description:
        'A confirmed booking’s signed receipt: a JWS (ES256) over its id, calendars, times, amount, approved intent hash, who approved and how, and its audit record. Verify it against the server’s published keys (`jwks`).',
      mimeType: 'application/json',
      cacheHint: PRIVATE_NOW,
      scopeChallenge: read,
    },
    (uri, variables, request) =>
      guarded(server, ctx, request, readOf(uri), async (principal) => {
        const receipt = await ownReceipt(ctx.deps, principal, String(variables.id));
        return json(uri, {
          receipt: {
            ...receipt,
            // Where the server that signed it publishes its keys (its own public address).
            jwks: receiptKeysUrl(receipt.claims.iss),
            verify:
              'Save `jws` to a file and run `holdfast receipts verify FILE`, or check it with any JOSE library against `jwks`.',
          },
        });
      }),
  );
  server.registerResource(
    'waitlist entry',
    new ResourceTemplate(WAITLIST_TEMPLATE, { list: undefined }),
    {
      title: 'Waitlist entry',
      description:
        'One of your waitlist entries (join_waitlist): WAITING with its position, or OFFERED with the hold made for you to confirm. Listen to it (subscriptions/listen) to be told when it changes.',
      mimeType: 'application/json',
      cacheHint: PRIVATE_NOW,
      scopeChallenge: read,
    },
    (uri, variables, request) =>
      guarded(server, ctx, request, readOf(uri), async (principal) =>
        json(uri, { entry: waitlistView(await getWaitlistEntry(ctx.deps, principal, String(variables.id))) }),
      ),
  );
  // The SDK lists every resource at once; a tenant may have thousands: page them here instead.
  server.server.setRequestHandler('resources/list', (request, context) => {
    const cursor = request.params?.cursor;
    const call = { method: 'resources/list', preview: { cursor: cursor === undefined ? null : 'given' } };
    return guarded(server, ctx, context, call, (principal) =>
      listPage(ctx, principal, readListCursor(cursor)),
    );
  });
  registerCompletion(server, ctx);
}

/** One page: the calendars first, then the caller's bookings, each a page at a time. */
async function listPage(ctx: ToolContext, principal: Principal, position: ListPosition) {
  if (position.kind === 'calendars') {
    const page = await listCalendars(ctx.deps, principal, { limit: PAGE, cursor: position.cursor });
    return {
      resources: page.calendars.map((c) => ({
        uri: calendarUri(c.id),
        name: c.name,
        title: `${c.name} (${c.timeZone})`,
        description: `Calendar in ${c.timeZone}`,
        mimeType: 'application/json',
      })),
      nextCursor: writeListCursor(
        page.nextCursor ? { kind: 'calendars', cursor: page.nextCursor } : { kind: 'bookings' },
      ),
      ...LIST_HINT,
    };
  }
  const page = await listBookings(ctx.deps, principal, { limit: PAGE, cursor: position.cursor });
  return {
    resources: page.bookings.map(({ booking }) => ({
      uri: bookingUri(booking.id),
      name: booking.reference,
      description: `Booking ${booking.reference}`,
      mimeType: 'application/json',
    })),
    ...(page.nextCursor
      ? { nextCursor: writeListCursor({ kind: 'bookings', cursor: page.nextCursor }) }
      : {}),
    ...LIST_HINT,
  };
}
