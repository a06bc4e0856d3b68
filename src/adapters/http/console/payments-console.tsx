import type { Context } from 'hono';
import type { SimulatedPaymentLine } from '../../../app/console-payments.js';
import type { SignedIn } from '../../../app/identity/sessions.js';
import type { Person } from '../../../domain/identity/identity.js';
import type { PaymentStatus } from '../../../domain/payment/payment.js';
import { isDomainError } from '../../../domain/errors.js';
import type { PageApp } from '../http-app.js';
import { csrfToken } from '../human-session.js';
import { BookingTime } from './booking-views.js';
import type { ConsolePage, FormEvent } from './console-page.js';
import { formPosts, formStrings } from './console-page.js';
import { CONSOLE_HEADERS, Shell, Status } from './shell.js';

export interface PaymentsConsoleOptions {
  readonly page: ConsolePage;
  list(person: Person): Promise<SimulatedPaymentLine[]>;
  set(bookingId: string, status: PaymentStatus, signed: SignedIn): Promise<void>;
  record(event: FormEvent): Promise<void>;
}

const FORM = 'console-payments';
const OUTCOMES: readonly [PaymentStatus, string][] = [
  ['PAID', 'Pay'],
  ['FAILED', 'Fail'],
  ['CLOSED', 'Close'],
];

function PaymentsPage(props: { signed: SignedIn; lines: SimulatedPaymentLine[]; message?: string }) {
  const csrf = csrfToken(props.signed.session, FORM);
  return (
    <Shell title="Payments (simulator)" signed={props.signed} section="/console/payments">
      <h1>Payments (development simulator)</h1>
      <p class="notice">
        This server runs with <code>--dev</code>: payments come from a local simulator, not a provider. Play
        the customer here; the agent's confirm then sees what you chose.
      </p>
      {props.message ? (
        <p class="notice good" id="result" role="status">
          {props.message}
        </p>
      ) : (
        ''
      )}
      {props.lines.length === 0 ? (
        <p class="muted" id="no-payments">
          No live priced holds. A priced hold an agent places appears here.
        </p>
      ) : (
        <ul class="queue" id="payments">
          {props.lines.map(({ line, report }) => (
            <li class="card" data-booking={line.booking.id}>
              <h2>
                <a href={`/console/bookings/${line.booking.id}`}>{line.booking.reference}</a>{' '}
                <Status status={report?.status ?? 'PENDING'} />
              </h2>
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
    </Shell>
  );
}

/** --dev only: the payment simulator's controls, for owners and approvers of the tenant. */
export function mountPaymentsConsole(app: PageApp, options: PaymentsConsoleOptions): void {
  const { page } = options;
  const render = async (
    c: Context,
    signed: SignedIn,
    status: 200 | 400 | 403 | 409 = 200,
    message?: string,
  ) =>
    c.html(
      <PaymentsPage signed={signed} lines={await options.list(signed.person)} message={message} />,
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
    '/console/payments',
    page.signedIn(async (c, signed) => {
      try {
        return await render(c, signed);
      } catch (error) {
        if (!isDomainError(error) || error.code !== 'FORBIDDEN') throw error;
        return refusedPage(c, signed, error.message);
      }
    }),
  );

  const action = formPosts(page, {
    purpose: FORM,
    record: options.record,
    rerender: async (c, signed, status, message) =>
      status === 403 ? refusedPage(c, signed, message) : render(c, signed, status, message),
  });
  app.post(
    '/console/payments/:bookingId',
    action('console_payment_simulate', async (c, signed, form) => {
      const status = formStrings(form.status)[0];
      const chosen = OUTCOMES.find(([s]) => s === status)?.[0];
      if (!chosen) return render(c, signed, 400, 'Choose Pay, Fail or Close.');
      await options.set(c.req.param('bookingId') ?? '', chosen, signed);
      return render(c, signed, 200, `Simulated payment set to ${chosen.toLowerCase()}.`);
    }),
  );
}
