import type { Context } from 'hono';
import type { ActivityRow, ActivityView, ChainView } from '../../../app/console/activity.js';
import {
  ACTIVITY_EXPORT_CAP,
  activityExport,
  activityPage,
  activityPeople,
} from '../../../app/console/activity.js';
import type { SignedIn } from '../../../app/identity/sessions.js';
import type { Person } from '../../../domain/identity/identity.js';
import { isDomainError } from '../../../domain/errors.js';
import type { PageApp } from '../page-app.js';
import { csvHeader, csvRows, jsonExport } from './activity-export.js';
import type { FilterValues, ParsedQuery } from './activity-filter.js';
import { parseActivityQuery } from './activity-filter.js';
import { ActivityPage } from './activity-views.js';
import type { ConsoleContext } from './console-page.js';
import { consoleArea } from './console-page.js';
import { CONSOLE_HEADERS } from './shell.js';

/** What the activity area needs beyond the console's context. */
export interface ActivityConsoleOptions {
  /** Whether the audit chain verifies, as far as this person may know. */
  chain(person: Person): Promise<ChainView>;
}

type Refusal = { field: string; message: string; values: FilterValues };

/** A filter field the app refused (an owner naming someone outside the tenant), as the form names it. */
function refusalOf(error: unknown, values: FilterValues): Refusal | null {
  if (!isDomainError(error) || error.code !== 'INVALID_ARGUMENTS') return null;
  const field = (error.details as { field?: string } | undefined)?.field;
  return { field: field === 'subject' ? 'person' : (field ?? ''), message: error.message, values };
}

/** The audit trail for signed-in people: filtered, paged newest first, exported as CSV or JSON. */
export function activityConsole(ctx: ConsoleContext, options: ActivityConsoleOptions): PageApp {
  const { page, deps } = ctx;
  const app = consoleArea();

  const refused = async (c: Context, signed: SignedIn, refusal: Refusal) =>
    c.html(
      <ActivityPage
        signed={signed}
        chain={await options.chain(signed.person)}
        values={refusal.values}
        people={await activityPeople(deps, signed.person)}
        error={refusal}
        now={page.now()}
      />,
      400,
      CONSOLE_HEADERS,
    );

  const parse = (c: Context, signed: SignedIn): ParsedQuery =>
    parseActivityQuery((name) => c.req.query(name), signed.zone ?? 'UTC');

  app.get(
    '/',
    page.signedIn(async (c, signed) => {
      const parsed = parse(c, signed);
      if (!parsed.ok) return refused(c, signed, parsed);
      let view: ActivityView;
      try {
        view = await activityPage(deps, signed.person, parsed.filter, parsed.cursor);
      } catch (error) {
        const refusal = refusalOf(error, parsed.values);
        if (refusal) return refused(c, signed, refusal);
        throw error;
      }
      return c.html(
        <ActivityPage
          signed={signed}
          chain={await options.chain(signed.person)}
          values={parsed.values}
          people={view.people}
          view={view}
          now={page.now()}
        />,
        200,
        CONSOLE_HEADERS,
      );
    }),
  );

  /** An export: refused like the page when its filter is wrong, else streamed batch by batch. */
  const exporter = (format: 'csv' | 'json') =>
    page.signedIn(async (c, signed) => {
      const parsed = parse(c, signed);
      if (!parsed.ok) return refused(c, signed, parsed);
      let batches: AsyncGenerator<ActivityRow[], { truncated: boolean }>;
      try {
        batches = await activityExport(deps, signed.person, parsed.filter);
      } catch (error) {
        const refusal = refusalOf(error, parsed.values);
        if (refusal) return refused(c, signed, refusal);
        throw error;
      }
      const now = page.now();
      const encoder = new TextEncoder();
      let rows = 0;
      let started = false;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (!started) {
            started = true;
            controller.enqueue(
              encoder.encode(
                format === 'csv'
                  ? csvHeader()
                  : jsonExport.head({
                      tenantId: signed.person.tenantId,
                      exportedAt: now,
                      filter: parsed.filter,
                      cap: ACTIVITY_EXPORT_CAP,
                    }),
              ),
            );
            return;
          }
          const next = await batches.next();
          if (next.done) {
            if (format === 'json') controller.enqueue(encoder.encode(jsonExport.tail(next.value.truncated)));
            controller.close();
            // A finished download stands even if its record cannot be written (the audit log reports that).
            await ctx
              .audit(
                'console_activity_export',
                signed,
                { format, rows, truncated: next.value.truncated },
                'read',
              )
              .finish()
              .catch(() => undefined);
            return;
          }
          controller.enqueue(
            encoder.encode(format === 'csv' ? csvRows(next.value) : jsonExport.rows(next.value, rows === 0)),
          );
          rows += next.value.length;
        },
        async cancel() {
          await batches.return({ truncated: false });
        },
      });
      const stamp = new Date(now).toISOString().slice(0, 19).replace(/:/g, '-');
      return c.body(body, 200, {
        ...CONSOLE_HEADERS,
        'Content-Type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8',
        'Content-Disposition': `attachment; filename="holdfast-activity-${stamp}Z.${format}"`,
      });
    });

  app.get('/export.csv', exporter('csv'));
  app.get('/export.json', exporter('json'));
  return app;
}
