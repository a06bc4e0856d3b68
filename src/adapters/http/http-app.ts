import type { HttpBindings } from '@hono/node-server';
import type { AuthInfo, McpServerFactory, ServerEventBus } from '@modelcontextprotocol/server';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { Hono } from 'hono';
import { RECEIPT_KEYS_PATH } from '../../domain/booking/receipt.js';
import { secureHeaders } from 'hono/secure-headers';
import type { Logger } from '../log/json-logger.js';
import type { ServerNames } from './request-guards.js';
import { FORM_DEADLINE_MS, formOnly, hostGuard } from './request-guards.js';
import { withContractCodes } from './contract-codes.js';
import { mountRestTwins } from './rest-twins.js';
import type { Registry } from 'prom-client';
import { mountMetrics } from './metrics-route.js';
import type { McpGateOptions } from './mcp-gate.js';
import { mcpGate } from './mcp-gate.js';
import { clientAddress } from './human-session.js';
import { requestSpan } from './request-span.js';
import { clientSentAtRefusal, timingStamps } from './timing-contract.js';
import { AnonymousAdmission, admitAnonymous } from './anonymous-admission.js';
import type { PageApp } from './page-app.js';

export type { PageApp } from './page-app.js';

export interface McpMount {
  readonly factory: McpServerFactory;
  /** The bearer gate: the verified token's AuthInfo, or the 401/403 answer to send instead. */
  readonly authenticate: (request: Request) => Promise<AuthInfo | Response>;
  readonly legacy: 'stateless' | 'reject';
  readonly maxBodyBytes: number;
  /** Milliseconds a body may take to arrive (then 408, and the connection closes). */
  readonly bodyTimeoutMs: number;
  /** Under the hotel-ops profile, failed answers also carry the contract's MCP-layer codes. */
  readonly contractCodes?: boolean;
  /** `--timing-contract`: the clock that stamps when requests came and answers left. */
  readonly timingContract?: () => number;
  /** Where resource changes come from for `subscriptions/listen` streams (the waitlist's offers). */
  readonly events?: ServerEventBus;
  /** The audit gate's record and budget (every request leaves one record; see mcp-gate.ts). */
  readonly gate: Pick<McpGateOptions, 'record' | 'takeBudget' | 'now'>;
  /** Whether X-Forwarded-For names the client (counted refusals are per address). */
  readonly trustProxy: boolean;
}

export interface HttpAppOptions {
  /** POST /mcp; absent for the page server `holdfast stdio` runs beside its stdio transport. */
  readonly mcp?: McpMount;
  readonly names: ServerNames;
  /** Whether X-Forwarded-For names the client: requests nobody is known for are counted per address. */
  readonly trustProxy?: boolean;
  /** Milliseconds a form's body may take to arrive (at most 10 s: forms are small). */
  readonly bodyTimeoutMs?: number;
  readonly logger: Logger;
  readonly health: () => Promise<boolean>;
  readonly version: string;
  /** Human-facing pages (sign-in, approval, consent, development payment form): small urlencoded forms. */
  readonly mountPages?: (app: PageApp) => void;
  /**
   * The same pages, loaded on the first request no other route answered: their code (JSX, the
   * console, passkeys) costs a server's start-up nothing. A failed load answers 500 and is tried
   * again on the next request.
   */
  readonly loadPages?: () => Promise<(app: PageApp) => void>;
  /** Endpoints with their own body parsing and limits (the OAuth authorization server). */
  readonly mountBeforeForms?: (app: PageApp) => void;
  /** GET /receipts/jwks.json: every key that signed a receipt, public and cacheable (anyone may verify). */
  readonly receiptKeys?: () => Promise<unknown>;
  /** GET /metrics (Prometheus): absent where nothing is measured (the stdio page server). */
  readonly metrics?: {
    readonly registry: Registry;
    readonly operatorTenant: string;
    readonly trustProxy: boolean;
  };
}

export interface HttpApp {
  /** Node's request and response ride along as `env` (HttpBindings) for the authorization server. */
  readonly fetch: (request: Request, env?: HttpBindings) => Response | Promise<Response>;
  close(): Promise<void>;
}

/** The HTTP surface: POST /mcp (both protocol eras), health, the human pages, and nothing else. */
export function createHttpApp(options: HttpAppOptions): HttpApp {
  const app = new Hono<{ Bindings: HttpBindings }>();
  // The pages', forms' and OAuth's requests, held while their bodies arrive. /mcp is not counted:
  // it reads nothing before the credential, so a stranger there costs one lookup and is answered.
  const admission = new AnonymousAdmission();
  app.use('*', requestSpan);
  app.use('*', secureHeaders({ xFrameOptions: 'DENY', referrerPolicy: 'same-origin' }));
  app.use('*', hostGuard(options.names));
  app.use('*', admitAnonymous(admission, options.trustProxy ?? false));

  app.get('/healthz', (c) => c.json({ status: 'ok', version: options.version }));
  app.get('/readyz', async (c) =>
    (await options.health()) ? c.json({ status: 'ready' }) : c.json({ status: 'unavailable' }, 503),
  );
  const receiptKeys = options.receiptKeys;
  if (receiptKeys)
    app.get(RECEIPT_KEYS_PATH, async (c) =>
      c.json(await receiptKeys(), 200, {
        'Cache-Control': 'public, max-age=300',
        'Access-Control-Allow-Origin': '*',
      }),
    );
  if (options.metrics && options.mcp)
    mountMetrics(app, { ...options.metrics, authenticate: options.mcp.authenticate });

  const mcp =
    options.mcp &&
    createMcpHandler(options.mcp.factory, {
      legacy: options.mcp.legacy,
      maxRequestBodySize: options.mcp.maxBodyBytes,
      ...(options.mcp.events ? { bus: options.mcp.events } : {}),
      onerror: (error) => options.logger.warn('mcp transport error', { error: error.message }),
    });
  if (mcp) {
    const mount = options.mcp!;
    // Agents only: a person's session cookie is no credential here, only a bearer token is.
    const answer = mcpGate({
      authenticate: mount.authenticate,
      // The body the gate read, handed on parsed: the SDK reads nothing again. A body that is not
      // JSON goes to the SDK as the bytes read, so that it answers it as it always does.
      handle: async (request, authInfo, body) =>
        'parsed' in body
          ? mcp.fetch(request, { authInfo, parsedBody: body.parsed })
          : mcp.fetch(
              new Request(request.url, {
                method: 'POST',
                headers: request.headers,
                body: body.raw,
                signal: request.signal,
              }),
              { authInfo },
            ),
      body: { maxBytes: mount.maxBodyBytes, deadlineMs: mount.bodyTimeoutMs },
      ...(mount.timingContract ? { inspect: clientSentAtRefusal } : {}),
      ...mount.gate,
    });
    const clock = mount.timingContract;
    if (clock) app.post('/mcp', timingStamps(clock));
    if (mount.contractCodes)
      app.post('/mcp', async (c, next) => {
        await next();
        c.res = await withContractCodes(c.res);
      });
    app.post('/mcp', (c) => answer(c.req.raw, clientAddress(c, mount.trustProxy)));
    // The contract's REST interfaces: each its tool, called through the same gate.
    if (mount.contractCodes)
      mountRestTwins(app, async (request, c) =>
        withContractCodes(await answer(request, clientAddress(c, mount.trustProxy))),
      );
    // Stateless server: no SSE stream to resume and no session to delete.
    app.on(['GET', 'DELETE', 'PUT', 'PATCH'], '/mcp', (c) =>
      c.json({ error: 'method_not_allowed', message: 'Use POST /mcp' }, 405, { Allow: 'POST' }),
    );
  }
  options.mountBeforeForms?.(app);
  // The human pages' forms; /mcp and the authorization server have their own rules above.
  const forms = formOnly(Math.min(options.bodyTimeoutMs ?? FORM_DEADLINE_MS, FORM_DEADLINE_MS));
  app.use('*', (c, next) => (c.req.method === 'POST' && c.req.path !== '/mcp' ? forms(c, next) : next()));
  options.mountPages?.(app);
  if (options.loadPages) {
    const pages = lazyPages(options.loadPages, options.logger);
    app.all('*', async (c) => (await pages())(c.req.raw, c.env));
  }
  answerMisses(app, options.logger);
  return { fetch: (request, env) => app.fetch(request, env), close: async () => mcp?.close() };
}

/**
 * The pages as an app of their own, built once on first use. This app's guards (host, headers,
 * span, form-only bodies) already ran for the request; the pages app only routes it.
 */
function lazyPages(
  load: () => Promise<(app: PageApp) => void>,
  logger: Logger,
): () => Promise<(request: Request, env?: HttpBindings) => Response | Promise<Response>> {
  let built: Promise<PageApp> | null = null;
  return async () => {
    built ??= load().then((mount) => {
      const pages: PageApp = new Hono<{ Bindings: HttpBindings }>();
      mount(pages);
      answerMisses(pages, logger);
      return pages;
    });
    try {
      const pages = await built;
      return (request, env) => pages.fetch(request, env);
    } catch (error) {
      built = null;
      throw error;
    }
  };
}

/** An unknown path is a JSON 404; an unexpected error is logged and answered 500 without its detail. */
function answerMisses(app: PageApp, logger: Logger): void {
  app.notFound((c) => c.json({ error: 'not_found' }, 404));
  app.onError((error, c) => {
    logger.error('http error', { error: error.stack ?? String(error) });
    return c.json({ error: 'internal' }, 500);
  });
}
