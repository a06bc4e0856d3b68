import { randomBytes } from 'node:crypto';
import type { Hono } from 'hono';
import { approvalForPage, decideByPageToken } from '../app/approvals.js';
import { mountApprovalPage } from '../adapters/http/approval-page.js';
import { mountDevPaymentForm } from '../adapters/http/payment-form.js';
import type { Runtime } from './compose.js';
import type { ServerConfig } from './config.js';
import { auditOperatorAction } from './operator-audit.js';

/** The pages a person uses: the approval page, and the simulated checkout in development. */
export function mountHumanPages(app: Hono, runtime: Runtime, config: ServerConfig): void {
  const { deps } = runtime;
  const csrfKey = randomBytes(32).toString('base64url');
  mountApprovalPage(app, {
    csrfKey,
    load: (token) => approvalForPage(deps, token),
    decide: async (token, decision) => {
      const decided = await decideByPageToken(deps, token, decision);
      await auditOperatorAction(runtime, {
        tool: 'approval_page',
        kind: 'approval',
        tenantId: decided.tenantId,
        transport: 'http',
        args: { approvalId: decided.id, decision },
      });
      return decided;
    },
  });
  if (!config.production && config.payments === 'simulator') {
    mountDevPaymentForm(app, {
      csrfKey,
      describe: (id) =>
        deps.store.read(async (tx) => {
          const booking = await tx.getBooking(config.tenantId, id);
          return (
            booking && { amount: booking.price?.amount ?? null, currency: booking.price?.currency ?? null }
          );
        }),
      set: async (id, status) => {
        await runtime.simulator.set(id, status, deps.clock.now());
        await auditOperatorAction(runtime, {
          tool: 'dev_payment_form',
          kind: 'admin',
          tenantId: config.tenantId,
          transport: 'http',
          args: { bookingId: id, status },
        });
      },
    });
  }
}
