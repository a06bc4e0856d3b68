import type { PageApp } from '../adapters/http/http-app.js';
import { approvalForPage, decideByPageToken } from '../app/approvals.js';
import {
  beginPasskeyRegistration,
  beginPasskeySignIn,
  finishPasskeyRegistration,
  finishPasskeySignIn,
  passkeysOf,
  removePasskey,
} from '../app/identity/passkeys.js';
import { completeSetup, setupLinkTarget } from '../app/identity/people.js';
import type { SignedIn } from '../app/identity/sessions.js';
import { sessionOf, signIn, signOut } from '../app/identity/sessions.js';
import { mountApprovalPage } from '../adapters/http/approval-page.js';
import type { HumanSessions } from '../adapters/http/human-session.js';
import { sessionCookieName } from '../adapters/http/human-session.js';
import { mountPasskeyPages } from '../adapters/http/passkey-pages.js';
import { mountDevPaymentForm } from '../adapters/http/payment-form.js';
import { mountSignInPages } from '../adapters/http/sign-in-pages.js';
import { isDomainError } from '../domain/errors.js';
import type { Runtime } from './compose.js';
import type { ServerConfig } from './config.js';
import { operatorCall } from './operator-audit.js';
import type { OAuthServer } from './oauth-server.js';
import { mountConsentPages } from '../adapters/http/consent-pages.js';

interface PageEvent {
  readonly tool: string;
  readonly ok: boolean;
  readonly code?: string;
  readonly personId?: string;
}

/**
 * The pages a person uses: sign-in and setup links, the approval page, and the simulated
 * checkout with --dev. Every page action leaves an audit record naming the person.
 */
export function mountHumanPages(
  app: PageApp,
  runtime: Runtime,
  config: ServerConfig,
  oauth?: OAuthServer,
): void {
  const { deps } = runtime;
  const secure = runtime.publicBaseUrl.startsWith('https://');
  const sessions: HumanSessions = {
    cookieName: sessionCookieName(secure),
    secure,
    trustProxy: config.trustProxy,
    publicUrl: config.publicBaseUrl,
    current: (secret) => sessionOf(deps, secret),
  };
  const pageCall = (tool: string, signed: SignedIn | null, args: unknown, tenantId?: string) =>
    operatorCall(runtime, {
      tool,
      kind: tool === 'dev_payment_form' ? 'admin' : 'approval',
      tenantId: tenantId ?? signed?.person.tenantId ?? config.tenantId,
      transport: 'http',
      args,
      subject: signed?.person.id ?? 'anonymous-page',
      clientId: signed ? `session (${signed.session.method})` : 'no session',
    });

  const record = async ({ tool, ok, code, personId }: PageEvent) => {
    const audit = operatorCall(runtime, {
      tool,
      kind: 'admin',
      tenantId: config.tenantId,
      transport: 'http',
      args: { ok },
      subject: personId ?? 'anonymous-page',
      clientId: 'human page',
    });
    await audit.finish(ok ? undefined : { outcome: 'error', code: code ?? 'FORBIDDEN', message: '' });
  };

  mountSignInPages(app, {
    sessions,
    signIn: (input) => signIn(deps, input),
    signOut: (secret) => signOut(deps, secret),
    setupTarget: (secret) => setupLinkTarget(deps, secret),
    completeSetup: (secret, password, owner) => completeSetup(deps, secret, password, owner),
    record,
  });

  mountPasskeyPages(app, {
    sessions,
    beginRegistration: (signed, rp) => beginPasskeyRegistration(deps, signed, rp),
    finishRegistration: (signed, rp, input) => finishPasskeyRegistration(deps, signed, rp, input),
    beginSignIn: (rp, address) => beginPasskeySignIn(deps, rp, address),
    finishSignIn: (rp, input) => finishPasskeySignIn(deps, rp, input),
    list: (personId) => passkeysOf(deps, personId),
    remove: (signed, id) => removePasskey(deps, signed, id),
    record,
  });

  if (oauth) mountConsentPages(app, { sessions, endpoints: oauth.endpoints, ...oauth.consent });

  mountApprovalPage(app, {
    sessions,
    load: (token, person) => approvalForPage(deps, token, person),
    decide: async (token, decision, signed) => {
      const audit = pageCall('approval_page', signed, { decision });
      try {
        const decided = await decideByPageToken(
          deps,
          token,
          decision,
          { person: signed.person, method: signed.session.method },
          { audit },
        );
        await audit.finish();
        return decided;
      } catch (error) {
        const code = isDomainError(error) ? error.code : 'INTERNAL';
        await audit.finish({ outcome: 'error', code, message: isDomainError(error) ? error.message : '' });
        throw error;
      }
    },
    refused: (reason, signed) =>
      pageCall('approval_page', signed, { decision: 'refused' }).finish({
        outcome: 'error',
        code: 'FORBIDDEN',
        message: reason,
      }),
  });

  if (config.dev && config.payments === 'simulator') {
    mountDevPaymentForm(app, {
      sessions,
      describe: (id, signed) =>
        deps.store.read(async (tx) => {
          const booking = await tx.bookings.get(signed.person.tenantId, id);
          return (
            booking && { amount: booking.price?.amount ?? null, currency: booking.price?.currency ?? null }
          );
        }),
      set: async (id, status, signed) => {
        const audit = pageCall('dev_payment_form', signed, { bookingId: id, status });
        await runtime.simulator.set(id, status, deps.clock.now(), undefined, audit, signed.person.tenantId);
        await audit.finish();
      },
    });
  }
}
