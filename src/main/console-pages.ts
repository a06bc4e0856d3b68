import type { Person } from '../domain/identity/identity.js';
import type { PaymentStatus } from '../domain/payment/payment.js';
import type { CallAudit } from '../adapters/audit/call-audit.js';
import type { PageApp } from '../adapters/http/http-app.js';
import type { HumanSessions } from '../adapters/http/human-session.js';
import { mountActivityConsole } from '../adapters/http/console/activity-console.js';
import { ChainWatch } from '../adapters/audit/chain-watch.js';
import { activityExport, activityPage, activityPeople, chainViewFor } from '../app/console-activity.js';
import { mountApprovalsConsole } from '../adapters/http/console/approvals-console.js';
import { mountConsoleAssets } from '../adapters/http/console/console-assets.js';
import { consolePage } from '../adapters/http/console/console-page.js';
import { mountConnectionsConsole } from '../adapters/http/console/connections-console.js';
import { mountCalendarsConsole } from '../adapters/http/console/calendars-console.js';
import {
  calendarDetail,
  calendarsOverview,
  createCalendarAs,
  removeOverrideAs,
  replaceWeekAs,
  setOverrideAs,
  setRulesAs,
  updateDetailsAs,
} from '../app/console-calendars.js';
import { mountBookingsConsole } from '../adapters/http/console/bookings-console.js';
import {
  bookingHistory,
  bookingsOf,
  calendarChoices,
  consoleBooking,
  endBookingAs,
  reconciliationQueue,
} from '../app/console-bookings.js';
import { decideInConsole } from '../app/approvals.js';
import { approvalQueue, consoleApproval } from '../app/console-approvals.js';
import {
  changeAccessAs,
  connectionsOf,
  createOwnToken,
  revokeConnectionAs,
  revokeTokenAs,
} from '../app/console-connections.js';
import type { SignedIn } from '../app/identity/sessions.js';
import { isDomainError } from '../domain/errors.js';
import type { Runtime } from './compose.js';
import { setupUrl } from './first-owner.js';
import type { FormEvent } from '../adapters/http/console/console-page.js';
import { mountPeopleConsole } from '../adapters/http/console/people-console.js';
import { mountPaymentsConsole } from '../adapters/http/console/payments-console.js';
import { showDevSections } from '../adapters/http/console/shell.js';
import { requirePayer, simulatedPayments } from '../app/console-payments.js';
import { moneyToReturn, refundReturned, settleRefundAs } from '../app/refunds.js';
import { canRefund } from '../ports/payment-query.js';
import {
  changeRole,
  checkRole,
  invitePerson,
  newLinkFor,
  peopleOf,
  setDisabled,
  updateSettings,
} from '../app/console-people.js';
import { operatorCall } from './operator-audit.js';
import { mountInboxConsole } from '../adapters/http/console/inbox-console.js';
import { conversationPage, inboxOverview } from '../app/console-inbox.js';
import { completeTask, confirmTask, rejectTask } from '../app/inbox/tasks.js';
import { setKeysAs } from '../app/inbox/business-keys.js';

/** Runs a console action and records how it ended in its audit record. */
async function audited<T>(call: CallAudit, work: () => Promise<T>): Promise<T> {
  try {
    const result = await work();
    await call.finish();
    return result;
  } catch (error) {
    const code = isDomainError(error) ? error.code : 'INTERNAL';
    await call.finish({ outcome: 'error', code, message: isDomainError(error) ? error.message : '' });
    throw error;
  }
}

/** The console under /console: approvals and connections, each action audited as the signed-in person's. */
export function mountConsole(
  app: PageApp,
  runtime: Runtime,
  sessions: HumanSessions,
  options: {
    readonly simulatedPayments: boolean;
    /** The tenant `holdfast serve --tenant` runs for: its owners are the installation's operators. */
    readonly operatorTenant: string;
  },
): void {
  const { deps } = runtime;
  const page = consolePage(sessions, (path) =>
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
  const audit = (tool: string, signed: SignedIn, args: unknown, kind: 'approval' | 'admin') =>
    operatorCall(runtime, {
      tool,
      kind,
      tenantId: signed.person.tenantId,
      transport: 'http',
      args,
      subject: signed.person.id,
      clientId: `session (${signed.session.method})`,
    });

  // A console form's outcome, in the trail as the signed-in person's action.
  const recordForm = async ({ tool, ok, code, personId }: FormEvent) => {
    const person = await deps.store.read((tx) => tx.identity.getPerson(personId));
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
  };

  mountConsoleAssets(app);
  showDevSections(options.simulatedPayments);
  mountPaymentsConsole(app, {
    page,
    toReturn: (person) => moneyToReturn(deps, person),
    returned: (person, id) => refundReturned(deps, person, id),
    providerRefunds: canRefund(deps.payments),
    async settle(id, way, signed) {
      const call = audit('console_refund', signed, { bookingId: id, way }, 'approval');
      await audited(call, () => settleRefundAs(deps, signed.person, id, way, { audit: call }));
    },
    ...(options.simulatedPayments
      ? {
          simulator: {
            list: (person: Person) => simulatedPayments(deps, person),
            async set(id: string, status: PaymentStatus, signed: SignedIn) {
              requirePayer(signed.person);
              const call = audit('console_payment_simulate', signed, { bookingId: id, status }, 'admin');
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
          },
        }
      : {}),
    // The effect's own record says it happened; the form's record is kept only for refusals.
    record: (event) => (event.ok ? Promise.resolve() : recordForm(event)),
  });
  mountPeopleConsole(app, {
    page,
    view: (owner) => peopleOf(deps, owner),
    invite: (owner, input) =>
      invitePerson(deps, owner, {
        email: input.email,
        role: checkRole(input.role),
        displayName: input.displayName || undefined,
      }),
    newLink: (owner, id) => newLinkFor(deps, owner, id),
    changeRole: (owner, id, role) => changeRole(deps, owner, id, checkRole(role)),
    setDisabled: (owner, id, disabled) => setDisabled(deps, owner, id, disabled),
    updateSettings: (owner, settings) => updateSettings(deps, owner, settings),
    setupUrl: (secret) => setupUrl(runtime, secret),
    record: recordForm,
  });
  mountApprovalsConsole(app, {
    page,
    queue: (person) => approvalQueue(deps, person),
    detail: (person, id) => consoleApproval(deps, person, id),
    async decide(id, decision, signed) {
      const call = audit('console_approval', signed, { approvalId: id, decision }, 'approval');
      await audited(call, () =>
        decideInConsole(
          deps,
          id,
          decision,
          { person: signed.person, method: signed.session.method },
          { audit: call },
        ),
      );
      if (decision !== 'APPROVE') return;
      // Hotel-ops: the task that asked for this approval is completed by the same yes — one
      // decision, one click. If it cannot finish now (the payment has not cleared), the approval
      // stands and the task keeps its "Complete booking" button.
      const task = await deps.store.read((tx) => tx.inbox.taskAwaitingApproval(signed.person.tenantId, id));
      if (!task) return;
      const completion = audit(
        'console_inbox_task',
        signed,
        { taskId: task.id, action: 'complete', version: task.version },
        'approval',
      );
      try {
        await audited(completion, () =>
          completeTask(deps, signed.person, task.id, task.version, {
            audit: completion,
            traceId: deps.ids.newId('op'),
          }),
        );
        return { next: `/console/inbox/${task.conversationId}?done=complete#task-${task.id}` };
      } catch (error) {
        if (!isDomainError(error)) throw error;
        return;
      }
    },
    refused: (reason, signed) =>
      audit('console_approval', signed, { decision: 'refused' }, 'approval').finish({
        outcome: 'error',
        code: 'FORBIDDEN',
        message: reason,
      }),
  });
  mountInboxConsole(app, {
    page,
    list: (person) => inboxOverview(deps, person),
    conversation: (person, id) => conversationPage(deps, person, id),
    decide(taskId, action, version, signed) {
      const call = audit('console_inbox_task', signed, { taskId, action, version }, 'approval');
      const context = { audit: call, traceId: deps.ids.newId('op') };
      return audited(call, () =>
        action === 'confirm'
          ? confirmTask(deps, signed.person, taskId, version, context)
          : action === 'complete'
            ? completeTask(deps, signed.person, taskId, version, context)
            : rejectTask(deps, signed.person, taskId, version, ''),
      );
    },
    conversationOfTask: async (person, taskId) =>
      (await deps.store.read((tx) => tx.inbox.task(person.tenantId, taskId)))?.conversationId ?? null,
    refused: (reason, signed) =>
      audit('console_inbox_task', signed, { action: 'refused' }, 'approval').finish({
        outcome: 'error',
        code: 'FORBIDDEN',
        message: reason,
      }),
  });
  mountBookingsConsole(app, {
    page,
    now: () => deps.clock.now(),
    list: (person, filter, range) => bookingsOf(deps, person, filter, range),
    calendars: (person) => calendarChoices(deps, person),
    detail: (person, id) => consoleBooking(deps, person, id),
    reconcile: (person) => reconciliationQueue(deps, person),
    history: (person, id) => bookingHistory(deps, person, id),
    end: (id, action, expectedVersion, signed) =>
      audited(audit('console_booking', signed, { bookingId: id, action, expectedVersion }, 'approval'), () =>
        endBookingAs(deps, signed.person, id, action, expectedVersion),
      ),
    setKeys: (id, keys, expectedVersion, signed) =>
      audited(audit('console_booking_keys', signed, { bookingId: id, keys, expectedVersion }, 'admin'), () =>
        setKeysAs(deps, signed.person, id, keys, expectedVersion),
      ),
    refused: (reason, signed) =>
      audit('console_booking', signed, { action: 'refused' }, 'approval').finish({
        outcome: 'error',
        code: 'FORBIDDEN',
        message: reason,
      }),
  });
  mountCalendarsConsole(app, {
    page,
    overview: (person, n) => calendarsOverview(deps, person, n),
    detail: (person, id, length) => calendarDetail(deps, person, id, length),
    create: (person, input, call) => createCalendarAs(deps, person, input, call),
    updateDetails: (person, input, call) => updateDetailsAs(deps, person, input, call),
    replaceWeek: (person, input, call) => replaceWeekAs(deps, person, input, call),
    setOverride: (person, input, call) => setOverrideAs(deps, person, input, call),
    removeOverride: (person, input, call) => removeOverrideAs(deps, person, input, call),
    setRules: (person, input, call) => setRulesAs(deps, person, input, call),
    audit: (tool, signed, args) => audit(tool, signed, args, 'admin'),
  });
  mountConnectionsConsole(app, {
    page,
    view: (person) => connectionsOf(deps, person),
    createToken: (person, input) => createOwnToken(deps, person, input),
    revokeToken: (person, id) => revokeTokenAs(deps, person, id),
    revokeConnection: (person, id) => revokeConnectionAs(deps, person, id),
    changeAccess: (person, kind, id, input) => changeAccessAs(deps, person, kind, id, input),
    record: recordForm,
  });
  const chain = new ChainWatch(runtime.store, runtime.auditKey, { now: () => deps.clock.now() });
  mountActivityConsole(app, {
    page,
    view: (person, filter, cursor) => activityPage(deps, person, filter, cursor),
    people: (person) => activityPeople(deps, person),
    exportRows: (person, filter) => activityExport(deps, person, filter),
    chain: (person) => chainViewFor(chain, person, options.operatorTenant),
    exported: ({ person, format, rows, truncated }) =>
      operatorCall(runtime, {
        tool: 'console_activity_export',
        kind: 'read',
        tenantId: person.tenantId,
        transport: 'http',
        args: { format, rows, truncated },
        subject: person.id,
        clientId: 'console',
      }).finish(),
  });
  // Last: any other address under /console is the console's own "not found", not raw JSON.
  app.get(
    '/console/*',
    page.signedIn((c, signed) => page.notFound(c, signed)),
  );
}
