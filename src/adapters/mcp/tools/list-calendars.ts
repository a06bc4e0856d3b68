import { z } from 'zod';
import { listCalendars } from '../../../app/calendars/calendars.js';
import { calendarOut, calendarQueryInput } from '../schemas.js';
import { defineTool } from '../tool-kit.js';
import { calendarView } from '../views.js';

export const listCalendarsTool = defineTool({
  name: 'list_calendars',
  scope: 'read',
  title: 'List calendars',
  description:
    'Lists the bookable calendars (people, rooms, equipment) with their ids, time zones, weekly hours, price per booking, description and tags, oldest first, a page at a time (limit, default 50; pass nextCursor back for the next page); query keeps those whose name, description or tags hold every word. Start here to get calendar ids.',
  input: z.strictObject({
    limit: z.int().min(1).max(100).optional().describe('How many calendars to return (1-100, default 50).'),
    cursor: z.string().max(512).optional(),
    query: calendarQueryInput.optional(),
  }),
  data: z.object({ calendars: z.array(calendarOut), total: z.int(), nextCursor: z.string().nullable() }),
  kind: 'read',
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run({ deps, principal }, input) {
    const page = await listCalendars(deps, principal, {
      limit: input.limit ?? 50,
      cursor: input.cursor,
      query: input.query,
    });
    return {
      data: { calendars: page.calendars.map(calendarView), total: page.total, nextCursor: page.nextCursor },
    };
  },
});
