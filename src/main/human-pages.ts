import type { Hono } from 'hono';
import { approvalForPage, decideByPageToken } from '../app/approvals.js';
import { mountApprovalPage } from '../adapters/http/approval-page.js';
import { mountDevPaymentForm } from '../adapters/http/payment-form.js';
import { isDomainError } from '../domain/errors.js';
import type { Runtime } from './compose.js';
import type { ServerConfig } from './config.js';
import { operatorCall } from './operator-audit.js';

/** The pages a person uses: the approval page, and the simulated checkout in development. */
export function mountHumanPages(app: Hono, runtime: Runtime, config: ServerConfig): void {
  const { deps } = runtime;
  // The same on every instance, so a page served by one can be posted to another.
  const csrfKey = runtime.auditKey.derive('page-csrf').toString('base64url');
  const pageCall = (args: unknown, tool = 'approval_page', tenantId = config.tenantId) =>
    operatorCall(runtime, { tool, kind: 'approval', tenantId, transport: 'http', args });
  mountApprovalPage(app, {
    csrfKey,
    load: (token) => approvalForPage(deps, token),
    decide: async (token, decision) => {
      const audit = pageCall({ decision });
      try {
        const decided = await decideByPageToken(deps, token, decision, { audit });
        await audit.finish();
        return decided;
      } catch (error) {
        const code = isDomainError(error) ? error.code : 'INTERNAL';
        await audit.finish({ outcome: 'error', code, message: isDomainError(error) ? error.message : '' });
        throw error;
      }
    },
    refused: (reason) =>
      pageCall({ decision: 'refused' }).finish({ outcome: 'error', code: 'FORBIDDEN', message: reason }),
  });
  if (!config.production && config.payments === 'simulator') {
    mountDevPaymentForm(app, {
      csrfKey,
      describe: (id) =>
        deps.store.read(async (tx) => {
          const booking = await tx.bookings.get(config.tenantId, id);
          return (
            booking && { amount: booking.price?.amount ?? null, currency: booking.price?.currency ?? null }
          );
        }),
      set: async (id, status) => {
        const audit = operatorCall(runtime, {
          tool: 'dev_payment_form',
          kind: 'admin',
          tenantId: config.tenantId,
          transport: 'http',
          args: { bookingId: id, status },
        });
        await runtime.simulator.set(id, status, deps.clock.now(), undefined, audit);
        await audit.finish();
      },
    });
  }
}
