import type { PageApp } from '../../adapters/http/index.js';
import type { HttpPages, HumanSessions } from '../../adapters/http/index.js';
import { ChainWatch } from '../../adapters/audit/index.js';
import { chainViewFor } from '../../app/console/activity.js';
import type { ConnectInfo, ConsoleContext } from '../../adapters/http/index.js';
import type { Runtime } from './compose.js';
import { setupUrl } from './first-owner.js';
import { operatorCall } from '../cli/operator-audit.js';

/** The console under /console: every action audited as the signed-in person's. */
export function mountConsole(
  app: PageApp,
  pages: HttpPages,
  runtime: Runtime,
  sessions: HumanSessions,
  options: {
    readonly simulatedPayments: boolean;
    /** The tenant `holdfast serve --tenant` runs for: its owners are the installation's operators. */
    readonly operatorTenant: string;
    /** Where agents connect, for the connections page's snippets. */
    readonly connect: ConnectInfo;
  },
): void {
  const { deps } = runtime;
  const page = pages.consolePage(sessions, (path) =>
    operatorCall(runtime, {
      tool: 'console_post',
      kind: 'admin',
      tenantId: 'unknown',
      transport: 'http',
      args: { path },
      subject: 'anonymous-page',
      clientId: 'no session',
    }).finish({ outcome: 'error', code: 'FORBIDDEN', message: 'no session' }),
  );
  const ctx: ConsoleContext = {
    page,
    deps,
    audit: (tool, signed, args, kind) =>
      operatorCall(runtime, {
        tool,
        kind,
        tenantId: signed.person.tenantId,
        transport: 'http',
        args,
        subject: signed.person.id,
        clientId: `session (${signed.session.method})`,
      }),
    // A console form's outcome, in the trail as the signed-in person's action.
    async record({ tool, ok, code, personId }) {
      const person = await deps.store.read((tx) => tx.people.getPerson(personId));
      const call = operatorCall(runtime, {
        tool,
        kind: 'admin',
        tenantId: person?.tenantId ?? 'unknown',
        transport: 'http',
        args: { ok },
        subject: personId,
        clientId: 'console',
      });
      await call.finish(ok ? undefined : { outcome: 'error', code: code ?? 'FORBIDDEN', message: '' });
    },
  };
  const chain = new ChainWatch(runtime.store, runtime.auditKey, { now: () => deps.clock.now() });

  pages.mountConsoleAssets(app);
  pages.showDevSections(options.simulatedPayments);
  app.route(
    '/console',
    pages.consoleApp(ctx, {
      chain: (person) => chainViewFor(chain, person, options.operatorTenant),
      setupUrl: (secret) => setupUrl(runtime, secret),
      connect: options.connect,
      ...(options.simulatedPayments
        ? {
            async simulate(id, status, signed) {
              const call = ctx.audit('console_payment_simulate', signed, { bookingId: id, status }, 'admin');
              await runtime.simulator.set(
                id,
                status,
                deps.clock.now(),
                undefined,
                call,
                signed.person.tenantId,
              );
              await call.finish();
            },
          }
        : {}),
    }),
  );
}
