import type { PageStatus } from '../page-status.js';
import type { Context } from 'hono';
import type { SimulatedPaymentLine } from '../../../app/console/payments.js';
import { requirePayer, simulatedPayments } from '../../../app/console/payments.js';
import { moneyToReturn, refundReturned, settleRefundAs } from '../../../app/payments/refunds.js';
import { canRefund } from '../../../ports/payment-query.js';
import type { SignedIn } from '../../../app/identity/sessions.js';
import type { PaymentStatus } from '../../../domain/payment/payment.js';
import { isDomainError } from '../../../domain/errors.js';
import type { PageApp } from '../page-app.js';
import { csrfToken } from '../human-session.js';
import { BookingTime } from './booking-views.js';
import type { BookingLine } from '../../../app/console/bookings.js';
import type { ConsoleContext } from './console-page.js';
import { audited, consoleArea, formPosts, formStrings } from './console-page.js';
import { CONSOLE_HEADERS, Shell, Status } from './shell.js';

/** What the payments area needs beyond the console's context. */
export interface PaymentsConsoleOptions {
  /** --dev only: sets a simulated payment's outcome, as the payment provider would. */
  readonly simulate?: (bookingId: string, status: PaymentStatus, signed: SignedIn) => Promise<void>;
}

const FORM = 'console-payments';
const OUTCOMES: readonly [PaymentStatus, string][] = [
  ['PAID', 'Pay'],
  ['FAILED', 'Fail'],
  ['CLOSED', 'Close'],
];

/** Cancelled paid bookings: the money, to whom, and the buttons that settle it. */
function ToReturn(props: { lines: BookingLine[]; csrf: string; providerRefunds: boolean }) {
  return (
    <section aria-labelledby="to-return-heading">
      <h2 id="to-return-heading">Money to return ({props.lines.length})</h2>
      {props.lines.length === 0 ? (
        <p class="muted" id="nothing-to-return">
          Nothing is owed back. When a paid booking is cancelled, its money appears here until it is returned.
        </p>
      ) : (
        <ul class="queue" id="to-return">
          {props.lines.map((line) => {
            const refund = line.booking.payment!.refund!;
            const customer = line.booking.customer?.name ?? 'the customer';
            return (
              <li class="card" data-booking={line.booking.id}>
                <h3>
                  <a href={`/console/bookings/${line.booking.id}`}>{line.booking.reference}</a>{' '}
                  <strong>
                    {refund.amount} {refund.currency}
                  </strong>{' '}
                  owed back to {customer}
                </h3>
                <p class="small">
                  Cancelled booking: <BookingTime line={line} /> ·{' '}
                  {line.calendars.map((c) => c.name).join(', ')}
                </p>
                <form method="post" action={`/console/payments/${line.booking.id}/refund`} class="actions">
                  <input type="hidden" name="csrf" value={props.csrf} />
                  {props.providerRefunds ? (
                    <button type="submit" name="way" value="provider" class="primary">
                      Refund {refund.amount} {refund.currency} through the payment provider
                    </button>
                  ) : (
                    ''
                  )}
                  <button type="submit" name="way" value="by-hand">
                    I returned it myself: mark as returned
                  </button>
                </form>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

function PaymentsPage(props: {
  signed: SignedIn;
  toReturn: BookingLine[];
  providerRefunds: boolean;
  lines: SimulatedPaymentLine[] | null;
  message?: string;
}) {
  const csrf = csrfToken(props.signed.session, FORM);
  return (
    <Shell title="Payments" signed={props.signed} section="/console/payments">
      <h1>Payments</h1>
      {props.message ? (
        <p class="notice good" id="result" role="status">
          {props.message}
        </p>
      ) : (
        ''
      )}
      <ToReturn lines={props.toReturn} csrf={csrf} providerRefunds={props.providerRefunds} />
      {props.lines === null ? '' : <Simulator lines={props.lines} csrf={csrf} />}
    </Shell>
  );
}

/** --dev: play the customer paying, or failing to, for each live priced hold. */
function Simulator(props: { lines: SimulatedPaymentLine[]; csrf: string }) {
  const { csrf } = props;
  return (
    <section aria-labelledby="simulator-heading">
      <h2 id="simulator-heading">Development simulator</h2>
      <p class="notice">
        This server runs with <code>--dev</code>: payments come from a local simulator, not a provider. Play
        the customer here; the agent's confirm then sees what you chose.
      </p>
      {props.lines.length === 0 ? (
        <p class="muted" id="no-payments">
          No live priced holds. A priced hold an agent places appears here.
        </p>
      ) : (
        <ul class="queue" id="payments">
          {props.lines.map(({ line, report }) => (
            <li class="card" data-booking={line.booking.id}>
              <h3>
                <a href={`/console/bookings/${line.booking.id}`}>{line.booking.reference}</a>{' '}
                <Status status={report?.status ?? 'PENDING'} />
              </h3>
              <p class="small">
                <BookingTime line={line} /> · {line.calendars.map((c) => c.name).join(', ')} ·{' '}
                <strong>
                  {line.booking.price!.amount} {line.booking.price!.currency}
                </strong>
              </p>
              <form method="post" action={`/console/payments/${line.booking.id}`} class="actions">
                <input type="hidden" name="csrf" value={csrf} />
                {OUTCOMES.map(([status, words]) => (
                  <button
                    type="submit"
                    name="status"
                    value={status}
                    class={status === 'PAID' ? 'primary' : 'danger'}
                    aria-label={`${words}: ${line.booking.reference}`}
                  >
                    {words}
                  </button>
                ))}
              </form>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Money to return, for owners and approvers; with --dev also the payment simulator's controls. */
export function paymentsConsole(ctx: ConsoleContext, options: PaymentsConsoleOptions): PageApp {
  const { page, deps } = ctx;
  const app = consoleArea();
  const providerRefunds = canRefund(deps.payments);
  const render = async (c: Context, signed: SignedIn, status: 200 | PageStatus = 200, message?: string) =>
    c.html(
      <PaymentsPage
        signed={signed}
        toReturn={await moneyToReturn(deps, signed.person)}
        providerRefunds={providerRefunds}
        lines={options.simulate ? await simulatedPayments(deps, signed.person) : null}
        message={message}
      />,
      status,
      CONSOLE_HEADERS,
    );
  const refusedPage = (c: Context, signed: SignedIn, message: string) =>
    c.html(
      <Shell title="Refused" signed={signed} section="/console/payments">
        <h1 id="result">Refused</h1>
        <p>{message}</p>
      </Shell>,
      403,
      CONSOLE_HEADERS,
    );

  app.get(
    '/',
    page.signedIn(async (c, signed) => {
      try {
        const returned = c.req.query('returned');
        const confirmed = returned ? await refundReturned(deps, signed.person, returned) : false;
        const simulated = OUTCOMES.find(([status]) => status === c.req.query('simulated'))?.[0];
        const message = confirmed
          ? 'Recorded: the money is returned.'
          : simulated
            ? `Simulated payment set to ${simulated.toLowerCase()}.`
            : undefined;
        return await render(c, signed, 200, message);
      } catch (error) {
        if (!isDomainError(error) || error.code !== 'FORBIDDEN') throw error;
        return refusedPage(c, signed, error.message);
      }
    }),
  );

  // The effect's own record says it happened; the form's record is kept only for refusals.
  const action = formPosts(page, {
    purpose: FORM,
    record: (event) => (event.ok ? Promise.resolve() : ctx.record(event)),
    rerender: async (c, signed, status, message) =>
      status === 403 ? refusedPage(c, signed, message) : render(c, signed, status, message),
  });
  app.post(
    '/:bookingId/refund',
    action('console_refund', async (c, signed, form) => {
      const way = formStrings(form.way)[0];
      if (way !== 'provider' && way !== 'by-hand')
        return render(c, signed, 400, 'Choose how the money went back.');
      const id = c.req.param('bookingId') ?? '';
      const call = ctx.audit('console_refund', signed, { bookingId: id, way }, 'approval');
      await audited(call, () => settleRefundAs(deps, signed.person, id, way, { audit: call }));
      // A page, not the POST's answer: reloading it sends nothing again.
      return c.redirect(`/console/payments?returned=${encodeURIComponent(id)}`, 303);
    }),
  );
  const { simulate } = options;
  if (!simulate) return app;
  app.post(
    '/:bookingId',
    action('console_payment_simulate', async (c, signed, form) => {
      const status = formStrings(form.status)[0];
      const chosen = OUTCOMES.find(([s]) => s === status)?.[0];
      if (!chosen) return render(c, signed, 400, 'Choose Pay, Fail or Close.');
      requirePayer(signed.person);
      await simulate(c.req.param('bookingId') ?? '', chosen, signed);
      return c.redirect(`/console/payments?simulated=${chosen}`, 303);
    }),
  );
  return app;
}
