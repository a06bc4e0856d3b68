import { z } from 'zod';
import { getBooking, listBookings } from '../../../app/booking/read-bookings.js';
import { bookingStatuses } from '../../../domain/booking/booking.js';
import { bookingIdInput, bookingOut, instantInput } from '../schemas.js';
import { defineTool } from '../tool-kit.js';
import { bookingView } from '../views.js';

export const getBookingTool = defineTool({
  name: 'get_booking',
  scope: 'read',
  title: 'Get a booking',
  description: 'Reads one booking: status, version, times (UTC and local), hold expiry, customer, price.',
  input: z.strictObject({ bookingId: bookingIdInput }),
  data: z.object({ booking: bookingOut }),
  kind: 'read',
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run(ctx, input) {
    const { deps, principal } = ctx;
    const snapshot = await getBooking(deps, principal, input.bookingId);
    return { data: { booking: bookingView(snapshot, ctx) } };
  },
});

export const listBookingsTool = defineTool({
  name: 'list_bookings',
  scope: 'read',
  title: 'List bookings',
  description:
    'Lists bookings ordered by start time, optionally filtered by calendar, status and a time range (bookings overlapping [from, to)). Paginated: pass nextCursor back with the same filters.',
  input: z.strictObject({
    calendarId: z.string().min(1).max(100).optional(),
    status: z.enum(bookingStatuses).optional(),
    from: instantInput.optional(),
    to: instantInput.optional(),
    limit: z.int().min(1).max(100),
    cursor: z.string().max(512).optional(),
  }),
  data: z.object({ bookings: z.array(bookingOut), total: z.int(), nextCursor: z.string().nullable() }),
  kind: 'read',
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run(ctx, input) {
    const { deps, principal } = ctx;
    const result = await listBookings(deps, principal, input);
    return {
      data: {
        bookings: result.bookings.map((b) => bookingView(b, ctx)),
        total: result.total,
        nextCursor: result.nextCursor,
      },
    };
  },
});
