import type { PageApp } from '../page-app.js';
import type { ActivityConsoleOptions } from './activity-console.js';
import { activityConsole } from './activity-console.js';
import { approvalsConsole } from './approvals-console.js';
import { bookingsConsole } from './bookings-console.js';
import { calendarsConsole } from './calendars-console.js';
import type { ConnectionsConsoleOptions } from './connections-console.js';
import { connectionsConsole } from './connections-console.js';
import type { ConsoleContext } from './console-page.js';
import { consoleArea } from './console-page.js';
import { inboxConsole } from './inbox-console.js';
import type { PaymentsConsoleOptions } from './payments-console.js';
import { paymentsConsole } from './payments-console.js';
import type { PeopleConsoleOptions } from './people-console.js';
import { peopleConsole } from './people-console.js';
import { standingRulesConsole } from './standing-rules-console.js';

/** What the console needs beyond its context: the few things only the composition root knows. */
export type ConsoleOptions = ActivityConsoleOptions &
  PaymentsConsoleOptions &
  PeopleConsoleOptions &
  ConnectionsConsoleOptions;

/**
 * The console, mounted at /console: each area a sub-app of its own routes, calling the use
 * cases itself; any other address is the console's own "not found", not raw JSON.
 */
export function consoleApp(ctx: ConsoleContext, options: ConsoleOptions): PageApp {
  const { page } = ctx;
  const app = consoleArea();
  app.get(
    '/',
    page.signedIn((c) => c.redirect('/console/approvals', 303)),
  );
  app.route('/approvals', approvalsConsole(ctx));
  app.route('/inbox', inboxConsole(ctx));
  app.route('/bookings', bookingsConsole(ctx));
  app.route('/calendars', calendarsConsole(ctx));
  // Connections and the tokens' forms (/console/tokens/...) share one area.
  app.route('/', connectionsConsole(ctx, options));
  app.route('/activity', activityConsole(ctx, options));
  app.route('/people', peopleConsole(ctx, options));
  app.route('/payments', paymentsConsole(ctx, options));
  app.route('/standing-rules', standingRulesConsole(ctx));
  app.all(
    '/*',
    page.signedIn((c, signed) => page.notFound(c, signed)),
  );
  return app;
}
