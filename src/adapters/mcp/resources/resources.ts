import type { McpServer, ReadResourceResult, ServerContext } from '@modelcontextprotocol/server';
import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  ResourceTemplate,
} from '@modelcontextprotocol/server';
import { getCalendar, listCalendars } from '../../../app/calendars.js';
import { getBooking, listBookings } from '../../../app/read-bookings.js';
import type { Principal } from '../../../domain/calendar.js';
import { DomainError } from '../../../domain/errors.js';
import { CallAudit } from '../../audit/call-audit.js';
import type { ToolContext } from '../tool-kit.js';
import { ANONYMOUS, declaredClient, stepUpTo, traceIdOf } from '../tool-kit.js';
import { bookingView, calendarView } from '../views.js';
import { registerCompletion } from './completion.js';
import { readListCursor, writeListCursor } from './list-cursor.js';
import { BOOKING_TEMPLATE, bookingUri, CALENDAR_TEMPLATE, calendarUri } from './resource-names.js';

const PAGE = 50;

/** Reads change as bookings do: nothing is fresh for long, and it is this caller's view alone. */
const PRIVATE_NOW = { ttlMs: 0, cacheScope: 'private' } as const;
/** Lists: a short reuse for one caller saves a host re-listing on every turn. */
const LIST_HINT = { ttlMs: 30_000, cacheScope: 'private' } as const;

function json(uri: URL, value: unknown): ReadResourceResult {
  return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(value) }] };
}

/**
 * One read, audited as a call of `resources/read` by the principal. Not found and not theirs
 * look the same (-32602 with the uri, SEP-2164); other refusals are -32602 with the reason.
 */
async function audited(
  server: McpServer,
  ctx: ToolContext,
  request: ServerContext,
  uri: URL,
  read: (principal: Principal) => Promise<ReadResourceResult>,
): Promise<ReadResourceResult> {
  const caller = ctx.principalOf(request);
  const principal = caller
    ? { ...caller, clientId: `${caller.clientId} · ${declaredClient(request, server, 'request')}` }
    : ANONYMOUS;
  const audit = new CallAudit(
    {
      tenantId: principal.tenantId,
      subject: principal.subject,
      clientId: principal.clientId,
      transport: ctx.transport,
      tool: 'resources/read',
      kind: 'read',
      argumentsDigest: ctx.digests.arguments({ uri: uri.href }, true),
      preview: JSON.stringify({ uri: uri.href.slice(0, 120) }),
      traceId: traceIdOf(request),
      operationId: ctx.deps.ids.newId('op'),
    },
    ctx.audit,
    () => ctx.deps.clock.now(),
  );
  try {
    if (!caller) throw new DomainError('FORBIDDEN', 'No credential: this read acts for nobody.', {});
    const result = await read(principal);
    await audit.finish();
    return result;
  } catch (error) {
    const code = error instanceof DomainError ? error.code : 'INTERNAL';
    await audit.finish({ outcome: 'error', code, message: '' });
    if (code === 'NOT_FOUND') throw new ResourceNotFoundError(uri.href);
    if (error instanceof DomainError)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message, { uri: uri.href, code });
    ctx.logger.error('resource read failed', { uri: uri.href, error: String(error) });
    throw new ProtocolError(ProtocolErrorCode.InternalError, 'Internal error', { uri: uri.href });
  }
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
      audited(server, ctx, request, uri, async (principal) =>
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
      audited(server, ctx, request, uri, async (principal) => {
        const snapshot = await getBooking(ctx.deps, principal, String(variables.id));
        return json(uri, { booking: bookingView(snapshot, { deps: ctx.deps, links: ctx.links, principal }) });
      }),
  );
  // The SDK lists every resource at once; a tenant may have thousands: page them here instead.
  server.server.setRequestHandler('resources/list', async (request, context) => {
    const principal = ctx.principalOf(context);
    if (!principal) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'No credential.');
    const position = readListCursor(request.params?.cursor);
    try {
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
    } catch (error) {
      if (error instanceof DomainError)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message, { code: error.code });
      throw error;
    }
  });
  registerCompletion(server, ctx);
}
