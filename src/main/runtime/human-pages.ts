import { amountDue } from '../../app/payments/amount-due.js';
import { changeOwnPassword } from '../../app/identity/own-password.js';
import { setOwnTimeZone } from '../../app/identity/people.js';
import type { PageApp } from '../../adapters/http/index.js';
import { approvalForPage } from '../../app/approvals/approvals.js';
import {
  beginPasskeyRegistration,
  beginPasskeySignIn,
  finishPasskeyRegistration,
  finishPasskeySignIn,
  passkeysOf,
  removePasskey,
} from '../../app/identity/passkeys.js';
import { completeSetup, setupLinkTarget } from '../../app/identity/people.js';
import type { SignedIn } from '../../app/identity/sessions.js';
import {
  endOtherSessions,
  endSession,
  sessionOf,
  sessionsOf,
  signIn,
  signOut,
} from '../../app/identity/sessions.js';
import { liveTokensOf } from '../../app/identity/tokens.js';
import type { HttpPages, HumanSessions, ProviderLogin } from '../../adapters/http/index.js';
import { sessionCookieName } from '../../adapters/http/index.js';
import { mayApprove } from '../../domain/identity/identity.js';
import type { Runtime } from './compose.js';
import type { ServerConfig } from '../config/config.js';
import { operatorCall } from '../cli/operator-audit.js';
import type { OAuthServer } from './oauth-server.js';
import { mountConsole } from './console-pages.js';
import { resolve } from 'node:path';
import type { ConnectInfo } from '../../adapters/http/index.js';
import { describeDatabase, isPostgresUrl } from '../config/database-url.js';
import { countProviderFailure, signInThroughProvider } from '../../app/identity/provider-sign-in.js';

interface PageEvent {
  readonly tool: string;
  readonly ok: boolean;
  readonly code?: string;
  readonly personId?: string;
  /** Why a sign-in was refused, one word (kept in the audit record's preview as its status). */
  readonly reason?: string;
}

/**
 * The pages a person uses: sign-in and setup links, the approval page, and the simulated
 * checkout with --dev. Every page action leaves an audit record naming the person.
 */
export function mountHumanPages(
  app: PageApp,
  pages: HttpPages,
  runtime: Runtime,
  config: ServerConfig,
  wiring: {
    /** The organisation's sign-in provider (runtime/login-provider.ts), checked at start-up. */
    readonly provider: ProviderLogin | null;
    readonly oauth?: OAuthServer;
    readonly warn: (message: string, fields: Record<string, unknown>) => void;
  },
): void {
  const { provider, oauth } = wiring;
  const { deps } = runtime;
  const secure = runtime.publicBaseUrl.startsWith('https://');
  const sessions: HumanSessions = {
    cookieName: sessionCookieName(secure),
    secure,
    trustProxy: config.trustProxy,
    publicUrl: config.publicBaseUrl,
    current: (secret) => sessionOf(deps, secret),
    now: () => deps.clock.now(),
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

  // A person's page events belong to their own tenant's trail; events with nobody, to the default tenant's.
  const tenantOf = async (personId: string | undefined) =>
    (personId && (await deps.store.read((tx) => tx.people.getPerson(personId)))?.tenantId) || config.tenantId;
  const record = async ({ tool, ok, code, personId, reason }: PageEvent) => {
    const audit = operatorCall(runtime, {
      tool,
      kind: 'admin',
      tenantId: await tenantOf(personId),
      transport: 'http',
      args: reason === undefined ? { ok } : { ok, status: reason },
      subject: personId ?? 'anonymous-page',
      clientId: 'human page',
    });
    await audit.finish(ok ? undefined : { outcome: 'error', code: code ?? 'FORBIDDEN', message: '' });
  };

  pages.mountSignInPages(app, {
    sessions,
    provider: provider ?? undefined,
    signIn: (input) => signIn(deps, input),
    signOut: (secret) => signOut(deps, secret),
    setupTarget: (secret) => setupLinkTarget(deps, secret),
    completeSetup: (secret, password, owner) => completeSetup(deps, secret, password, owner),
    record,
  });

  if (provider)
    pages.mountProviderSignInPages(app, {
      sessions,
      provider,
      signIn: (identity, address) => signInThroughProvider(deps, { identity, address }),
      countFailure: (address) => countProviderFailure(deps, address),
      record,
      log: wiring.warn,
    });

  pages.mountPasskeyPages(app, {
    sessions,
    beginRegistration: (signed, rp) => beginPasskeyRegistration(deps, signed, rp),
    finishRegistration: (signed, rp, input) => finishPasskeyRegistration(deps, signed, rp, input),
    beginSignIn: (rp, address) => beginPasskeySignIn(deps, rp, address),
    finishSignIn: (rp, input) => finishPasskeySignIn(deps, rp, input),
    list: (personId) => passkeysOf(deps, personId),
    remove: (signed, id) => removePasskey(deps, signed, id),
    setTimeZone: async (signed, zone) => void (await setOwnTimeZone(deps, signed.person, zone)),
    liveSessions: (signed) => sessionsOf(deps, signed),
    endSession: (signed, handle) => endSession(deps, signed, handle),
    endOtherSessions: (signed) => endOtherSessions(deps, signed),
    tokens: (signed) => liveTokensOf(deps, signed.person),
    changePassword: (signed, change) => changeOwnPassword(deps, signed, change),
    record,
  });

  if (oauth) pages.mountConsentPages(app, { sessions, endpoints: oauth.endpoints, ...oauth.consent });

  mountConsole(app, pages, runtime, sessions, {
    simulatedPayments: config.dev && config.payments === 'simulator',
    operatorTenant: config.tenantId,
    connect: connectInfo(runtime, config, Boolean(oauth)),
  });

  pages.mountLegacyApprovalLinks(app, {
    sessions,
    approvalOf: async (token, person) => (await approvalForPage(deps, token, person))?.approval.id ?? null,
  });

  if (config.dev && config.payments === 'simulator') {
    pages.mountDevPaymentForm(app, {
      sessions,
      // Only the people who may run the console's simulator (owners, approvers) pay here.
      describe: (id, signed) =>
        deps.store.read(async (tx) => {
          if (!mayApprove(signed.person)) return null;
          const due = await amountDue(tx, signed.person.tenantId, id);
          return due ? { amount: due.price?.amount ?? null, currency: due.price?.currency ?? null } : null;
        }),
      set: async (id, status, signed) => {
        const audit = pageCall('dev_payment_form', signed, { bookingId: id, status });
        await runtime.simulator.set(id, status, deps.clock.now(), undefined, audit, signed.person.tenantId);
        await audit.finish();
      },
    });
  }
}

/**
 * Where this process's agents connect: `serve`'s /mcp at its public address; a stdio process
 * is started by its host, with the command that started this one (its database named).
 */
function connectInfo(runtime: Runtime, config: ServerConfig, oauth: boolean): ConnectInfo {
  if (config.command !== 'stdio')
    return { mcpUrl: `${runtime.publicBaseUrl.replace(/\/+$/, '')}/mcp`, oauth, stdioCommand: [] };
  const database = isPostgresUrl(config.database)
    ? ['--database', describeDatabase(config.database)]
    : ['--db', resolve(config.database)];
  const auditKey = config.auditKeyFile ? ['--audit-key-file', resolve(config.auditKeyFile)] : [];
  const cli = process.argv[1] ? resolve(process.argv[1]) : 'holdfast';
  return { mcpUrl: null, oauth: false, stdioCommand: ['node', cli, 'stdio', ...database, ...auditKey] };
}
