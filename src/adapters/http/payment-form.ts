import { createHmac } from 'node:crypto';
import type { Hono } from 'hono';
import { html } from 'hono/html';
import type { PaymentStatus } from '../../domain/payment/payment.js';
import { PAGE_HEADERS } from './page-headers.js';

export interface PaymentFormOptions {
  readonly set: (bookingId: string, status: PaymentStatus) => Promise<void>;
  readonly describe: (
    bookingId: string,
  ) => Promise<{ amount: string | null; currency: string | null } | null>;
  readonly csrfKey: string;
}

/**
 * Development only: a page standing in for the payment provider's checkout,
 * writing to the local simulator. Never mounted in production mode.
 */
export function mountDevPaymentForm(app: Hono, options: PaymentFormOptions): void {
  const csrf = (id: string) => createHmac('sha256', options.csrfKey).update(`pay:${id}`).digest('base64url');
  app.get('/pay/:bookingId', async (c) => {
    const id = c.req.param('bookingId');
    const price = await options.describe(id);
    if (!price) return c.html(html`<h1>Unknown booking</h1>`, 404, PAGE_HEADERS);
    return c.html(
      html`<!doctype html><meta charset="utf-8" /><title>Simulated payment</title>
        <h1>Simulated payment (development)</h1>
        <p>Booking <code>${id}</code>: ${price.amount ?? '—'} ${price.currency ?? ''}</p>
        <form method="post">
          <input type="hidden" name="csrf" value="${csrf(id)}" />
          <button name="status" value="PAID">Pay</button> <button name="status" value="FAILED">Fail</button>
          <button name="status" value="CLOSED">Close</button>
        </form>`,
      200,
      PAGE_HEADERS,
    );
  });
  app.post('/pay/:bookingId', async (c) => {
    const id = c.req.param('bookingId');
    const form = await c.req.parseBody();
    if (form.csrf !== csrf(id)) return c.html(html`<h1>Refused</h1>`, 403, PAGE_HEADERS);
    const status = form.status;
    if (status !== 'PAID' && status !== 'FAILED' && status !== 'CLOSED')
      return c.html(html`<h1>Refused</h1>`, 403, PAGE_HEADERS);
    await options.set(id, status);
    return c.html(html`<h1 id="result">Payment ${status}</h1>`, 200, PAGE_HEADERS);
  });
}
