import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubbedPayment {
  status: 'PENDING' | 'PAID' | 'FAILED' | 'CLOSED';
  amount: string | null;
  currency: string | null;
  paidAt: string | null;
  /** Answer this late (to test the client's timeout). */
  delayMs?: number;
  /** Report another booking id than the one asked for. */
  bookingId?: string;
}

/** A real HTTP payment provider on 127.0.0.1 that answers what the test set and records every request. */
export async function startPaymentStub() {
  const payments = new Map<string, StubbedPayment>();
  const requests: { bookingId: string; traceparent: string | undefined; sentAt: string | undefined }[] = [];
  /** Refunds made, by idempotency key: asked twice, the stub refunds once. */
  const refunds = new Map<
    string,
    { bookingId: string; amount: string; currency: string; reference: string }
  >();
  const server = createServer((req, res) => {
    const refund = /^\/payments\/([^/]+)\/refunds$/.exec(req.url ?? '');
    if (refund && req.method === 'POST') {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        const key = String(req.headers['idempotency-key'] ?? '');
        const { amount, currency } = JSON.parse(text) as { amount: string; currency: string };
        const made = refunds.get(key) ?? {
          bookingId: decodeURIComponent(refund[1]!),
          amount,
          currency,
          reference: `re_${refunds.size + 1}`,
        };
        refunds.set(key, made);
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ reference: made.reference }));
      });
      return;
    }
    const match = /^\/payments\/([^/]+)$/.exec(req.url ?? '');
    if (!match) {
      res.writeHead(404).end();
      return;
    }
    const bookingId = decodeURIComponent(match[1]!);
    requests.push({
      bookingId,
      traceparent: req.headers.traceparent as string | undefined,
      sentAt: req.headers['x-mcp-server-request-sent-at'] as string | undefined,
    });
    const stubbed = payments.get(bookingId) ?? {
      status: 'PENDING',
      amount: null,
      currency: null,
      paidAt: null,
    };
    const answer = () => {
      if (res.destroyed) return;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          bookingId: stubbed.bookingId ?? bookingId,
          status: stubbed.status,
          amount: stubbed.amount,
          currency: stubbed.currency,
          paidAt: stubbed.paidAt,
        }),
      );
    };
    if (stubbed.delayMs) setTimeout(answer, stubbed.delayMs).unref();
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    payments,
    requests,
    refunds,
    paid(bookingId: string, amount = '500.00', currency = 'CNY') {
      payments.set(bookingId, { status: 'PAID', amount, currency, paidAt: new Date().toISOString() });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
