import type { PageApp } from './page-app.js';
import type { SignedIn } from '../../app/identity/sessions.js';
import type { PaymentStatus } from '../../domain/payment/payment.js';
import type { HumanSessions } from './human-session.js';
import { csrfOk, csrfToken, signedInOf } from './human-session.js';
import { PAGE_HEADERS } from './page-headers.js';
import { Layout } from './page-layout.js';

export interface PaymentFormOptions {
  readonly sessions: HumanSessions;
  readonly set: (bookingId: string, status: PaymentStatus, signed: SignedIn) => Promise<void>;
  /** The booking's price, if the booking is in the signed-in person's tenant. */
  readonly describe: (
    bookingId: string,
    signed: SignedIn,
  ) => Promise<{ amount: string | null; currency: string | null } | null>;
}

/**
 * Development only (`--dev`): a page standing in for the payment provider's checkout, writing
 * to the local simulator. A signed-in person of the booking's tenant uses it; an agent cannot.
 */
export function mountDevPaymentForm(app: PageApp, options: PaymentFormOptions): void {
  app.get('/pay/:bookingId', async (c) => {
    const id = c.req.param('bookingId');
    const signed = await signedInOf(c, options.sessions);
    if (!signed) return c.redirect(`/login?next=${encodeURIComponent(`/pay/${id}`)}`, 303);
    const price = await options.describe(id, signed);
    if (!price)
      return c.html(
        <Layout title="Unknown">
          <h1>Unknown booking</h1>
        </Layout>,
        404,
        PAGE_HEADERS,
      );
    return c.html(
      <Layout title="Simulated payment">
        <h1>Simulated payment (development)</h1>
        <p>
          Booking <code>{id}</code>: {price.amount ?? '—'} {price.currency ?? ''}
        </p>
        <form method="post">
          <input type="hidden" name="csrf" value={csrfToken(signed.session, `pay:${id}`)} />
          <button name="status" value="PAID">
            Pay
          </button>{' '}
          <button name="status" value="FAILED">
            Fail
          </button>{' '}
          <button name="status" value="CLOSED">
            Close
          </button>
        </form>
      </Layout>,
      200,
      PAGE_HEADERS,
    );
  });
  app.post('/pay/:bookingId', async (c) => {
    const id = c.req.param('bookingId');
    const signed = await signedInOf(c, options.sessions);
    const form = await c.req.parseBody();
    const status = form.status;
    if (
      !signed ||
      !csrfOk(signed.session, `pay:${id}`, form.csrf) ||
      (status !== 'PAID' && status !== 'FAILED' && status !== 'CLOSED') ||
      !(await options.describe(id, signed))
    )
      return c.html(
        <Layout title="Refused">
          <h1>Refused</h1>
        </Layout>,
        403,
        PAGE_HEADERS,
      );
    await options.set(id, status, signed);
    return c.html(
      <Layout title="Paid">
        <h1 id="result">Payment {status}</h1>
      </Layout>,
      200,
      PAGE_HEADERS,
    );
  });
}
