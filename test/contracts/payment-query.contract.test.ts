import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpPayments } from '../../src/adapters/payment/http-payments.js';
import { SimulatedPayments } from '../../src/adapters/payment/simulated-payments.js';
import { SqliteStore } from '../../src/adapters/storage/sqlite/sqlite-store.js';
import type { PaymentStatus } from '../../src/domain/payment/payment.js';
import type { PaymentQuery, PaymentRefunds } from '../../src/ports/payment-query.js';
import { canRefund, PaymentUnavailableError } from '../../src/ports/payment-query.js';
import { hold, calendar, insertHold } from '../adapters/storage/store-contract.js';
import { startPaymentStub } from '../support/payment-stub.js';
import { tempDbPath } from '../support/spawn-server.js';
import { outboundFetch } from '../../src/adapters/net/outbound-guard.js';

/** The stub provider listens on loopback: the operator's say-so (--allow-private-upstreams). */
const localFetch = outboundFetch({ allowPrivate: true });

const PAID_AT = Date.UTC(2030, 0, 7, 9, 30, 15, 250);
const trace = { traceId: '0af7651916cd43dd8448eb211c80319c' };

/** A payment query and a way to make its provider report something. */
interface PaymentHarness {
  readonly query: PaymentQuery;
  /** A booking the provider can report on (the simulator knows only Holdfast's bookings). */
  readonly bookingId: string;
  report(bookingId: string, status: PaymentStatus, paidAt: number | null): Promise<void>;
  close(): Promise<void>;
}

const adapters: Record<string, () => Promise<PaymentHarness>> = {
  'simulator (in the database)': async () => {
    const db = tempDbPath();
    const store = await SqliteStore.open(db.path);
    const booking = hold(['cal_a'], PAID_AT, PAID_AT + 60_000, { tenantId: 't1' });
    await store.write(async (tx) => {
      await tx.calendars.insert(calendar('cal_a'));
      await insertHold(tx, booking);
    });
    const simulator = new SimulatedPayments(store, 't1');
    return {
      query: simulator,
      bookingId: booking.id,
      report: async (bookingId, status, paidAt) => {
        await simulator.set(bookingId, status, paidAt ?? PAID_AT, { amount: '500.00', currency: 'CNY' });
      },
      close: async () => {
        await store.close();
        db.cleanup();
      },
    };
  },
  'HTTP provider (a real stub on 127.0.0.1)': async () => {
    const stub = await startPaymentStub();
    return {
      query: new HttpPayments(stub.baseUrl, localFetch),
      bookingId: 'bk_http_1',
      report: async (bookingId, status, paidAt) => {
        stub.payments.set(bookingId, {
          status,
          amount: '500.00',
          currency: 'CNY',
          paidAt: paidAt === null ? null : new Date(paidAt).toISOString(),
        });
      },
      close: () => stub.close(),
    };
  },
};

for (const [name, make] of Object.entries(adapters)) {
  describe(`PaymentQuery contract: ${name}`, () => {
    let h: PaymentHarness;
    beforeEach(async () => {
      h = await make();
    });
    afterEach(() => h.close());

    it('reports PENDING with nothing known for a booking the provider has not heard of', async () => {
      expect(await h.query.queryPayment(h.bookingId, trace)).toEqual({
        bookingId: h.bookingId,
        status: 'PENDING',
        amount: null,
        currency: null,
        paidAt: null,
      });
    });

    it('reports a payment with its amount, currency and the instant it was paid, to the millisecond', async () => {
      await h.report(h.bookingId, 'PAID', PAID_AT);
      expect(await h.query.queryPayment(h.bookingId, trace)).toEqual({
        bookingId: h.bookingId,
        status: 'PAID',
        amount: '500.00',
        currency: 'CNY',
        paidAt: PAID_AT,
      });
    });

    it('reports FAILED and CLOSED without a paid instant, and the latest state wins', async () => {
      for (const status of ['FAILED', 'CLOSED'] as const) {
        await h.report(h.bookingId, status, null);
        expect(await h.query.queryPayment(h.bookingId, trace)).toMatchObject({
          bookingId: h.bookingId,
          status,
          paidAt: null,
        });
      }
    });

    it('refunds by booking id: asked twice, one refund with one reference', async () => {
      expect(canRefund(h.query)).toBe(true);
      const refunds = h.query as PaymentQuery & PaymentRefunds;
      const money = { amount: '500.00', currency: 'CNY' };
      const first = await refunds.requestRefund(h.bookingId, money, trace);
      expect(first.reference).toMatch(/\S/);
      expect(await refunds.requestRefund(h.bookingId, money, trace)).toEqual(first);
    });
  });
}

describe('an HTTP provider that breaks the contract', () => {
  it('a PAID answer without paidAt is not an answer: PaymentUnavailableError, never PAID at the server’s clock', async () => {
    const stub = await startPaymentStub();
    try {
      stub.payments.set('bk_no_paid_at', { status: 'PAID', amount: '500.00', currency: 'CNY', paidAt: null });
      await expect(
        new HttpPayments(stub.baseUrl, localFetch).queryPayment('bk_no_paid_at', trace),
      ).rejects.toBeInstanceOf(PaymentUnavailableError);
    } finally {
      await stub.close();
    }
  });
});

describe('HTTP refunds when the provider fails', () => {
  it('an HTTP error or an unreachable provider is PaymentUnavailableError, never a refund', async () => {
    const stub = await startPaymentStub();
    const base = stub.baseUrl;
    await stub.close();
    const gone = new HttpPayments(base, localFetch, 1_000);
    await expect(
      gone.requestRefund('bk_1', { amount: '1.00', currency: 'EUR' }, trace),
    ).rejects.toBeInstanceOf(PaymentUnavailableError);
  });
});
