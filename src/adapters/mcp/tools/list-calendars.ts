import { z } from 'zod';
import { listCalendars } from '../../../app/calendars.js';
import { calendarOut } from '../schemas.js';
import { defineTool } from '../tool-kit.js';
import { calendarView } from '../views.js';

export const listCalendarsTool = defineTool({
  name: 'list_calendars',
  title: 'List calendars',
  description:
    'Lists the bookable calendars (people, rooms, equipment) with their ids, time zones, weekly hours and price per booking. Start here to get calendar ids.',
  input: z.strictObject({}),
  data: z.object({ calendars: z.array(calendarOut) }),
  kind: 'read',
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run({ deps, principal }) {
    const calendars = await listCalendars(deps, principal);
    return { data: { calendars: calendars.map(calendarView) } };
  },
});
