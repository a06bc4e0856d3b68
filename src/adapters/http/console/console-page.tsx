import type { Context } from 'hono';
import { Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { AppDeps } from '../../../app/deps.js';
import type { SignedIn } from '../../../app/identity/sessions.js';
import type { AuditEntry } from '../../../ports/audit.js';
import type { CallAudit } from '../../audit/call-audit.js';
import type { PageApp } from '../page-app.js';
import type { HumanSessions } from '../human-session.js';
import { csrfOk, csrfToken, signedInOf } from '../human-session.js';
import { isDomainError } from '../../../domain/errors.js';
import { CONSOLE_HEADERS, Shell } from './shell.js';
import type { PageStatus } from '../page-status.js';
import { pageStatusOf } from '../page-status.js';

/** What every console route shares: who is signed in, and the answers for refusals. */
export interface ConsolePage {
  /** A handler for signed-in people; anyone else goes to sign in and comes back. */
  signedIn(
    handler: (c: Context, signed: SignedIn) => Response | Promise<Response>,
  ): (c: Context) => Promise<Response>;
  notFound(c: Context, signed: SignedIn): Response | Promise<Response>;
  refused(c: Context, signed: SignedIn): Response | Promise<Response>;
  /** The injected clock. */
  now(): number;
  /**
   * Post/Redirect/Get: keeps what a form's result page must show once (a one-time link, a new
   * token's secret) for the page the POST redirects to, so a reload sends nothing again. Kept
   * in a short-lived cookie bound to the session (a planted one is ignored).
   */
  flash(c: Context, signed: SignedIn, key: string, value: unknown): void;
  /** The value `flash` kept, once (reading it clears it); undefined when there is none or it is not this session's. */
  takeFlash(c: Context, signed: SignedIn, key: string): unknown;
}

const flashCookie = (key: string) => `holdfast_flash_${key}`;

export function consolePage(
  sessions: HumanSessions,
  /** A form posted with no session (a stolen link, an agent trying): kept in the audit trail. */
  anonymousPost: (path: string) => Promise<void>,
): ConsolePage {
  return {
    now: () => sessions.now(),
    flash(c, signed, key, value) {
      const text = Buffer.from(JSON.stringify(value)).toString('base64url');
      const seal = csrfToken(signed.session, `flash:${key}:${text}`);
      setCookie(c, flashCookie(key), `${text}.${seal}`, {
        httpOnly: true,
        secure: sessions.secure,
        sameSite: 'Strict',
        path: '/console',
        maxAge: 60,
      });
    },
    takeFlash(c, signed, key) {
      const kept = getCookie(c, flashCookie(key));
      if (kept === undefined) return undefined;
      deleteCookie(c, flashCookie(key), { path: '/console', secure: sessions.secure });
      const [text = '', seal] = kept.split('.');
      if (!csrfOk(signed.session, `flash:${key}:${text}`, seal)) return undefined;
      try {
        return JSON.parse(Buffer.from(text, 'base64url').toString()) as unknown;
      } catch {
        return undefined;
      }
    },
    signedIn: (handler) => async (c) => {
      const signed = await signedInOf(c, sessions);
      if (!signed) {
        if (c.req.method === 'POST') await anonymousPost(c.req.path);
        return c.redirect(`/login?next=${encodeURIComponent(c.req.path)}`, 303);
      }
      return handler(c, signed);
    },
    notFound: (c, signed) =>
      c.html(
        <Shell title="Not found" signed={signed} section="/console/approvals">
          <h1 id="result">Not found</h1>
          <p>There is nothing here for you. It may belong to another tenant, or never existed.</p>
        </Shell>,
        404,
        CONSOLE_HEADERS,
      ),
    refused: (c, signed) =>
      c.html(
        <Shell title="Refused" signed={signed} section="/console/approvals">
          <h1 id="result">Refused</h1>
          <p>Use the form on the page; this request did not come from it.</p>
        </Shell>,
        403,
        CONSOLE_HEADERS,
      ),
  };
}

/**
 * What every console area is given, as every MCP tool is given its context: the pages' frame,
 * the application's dependencies (the areas call the use cases themselves) and the audit trail.
 */
export interface ConsoleContext {
  readonly page: ConsolePage;
  readonly deps: AppDeps;
  /** The one audit record of a signed-in person's console action. */
  audit(tool: string, signed: SignedIn, args: unknown, kind: AuditEntry['kind']): CallAudit;
  /** A form's outcome, kept in the trail as the signed-in person's action. */
  record(event: FormEvent): Promise<void>;
}

/** A console area: its routes, relative to where the console mounts it (`app.route()`). */
export const consoleArea = (): PageApp => new Hono() as PageApp;

/** Runs a console action and records how it ended in its audit record. */
export async function audited<T>(call: CallAudit, work: () => Promise<T>): Promise<T> {
  try {
    const result = await work();
    await call.finish();
    return result;
  } catch (error) {
    const code = isDomainError(error) ? error.code : 'INTERNAL';
    await call.finish({ outcome: 'error', code, message: isDomainError(error) ? error.message : '' });
    throw error;
  }
}

/** The audit record of an item POST refused before anything was tried (no CSRF token, no action). */
export const refusedPost =
  (ctx: ConsoleContext, tool: string, args: Record<string, string>) => (reason: string, signed: SignedIn) =>
    ctx
      .audit(tool, signed, args, 'approval')
      .finish({ outcome: 'error', code: 'FORBIDDEN', message: reason });

/** What happened to a console form post, for the audit trail. */
export interface FormEvent {
  readonly tool: string;
  readonly ok: boolean;
  readonly code?: string;
  readonly personId: string;
}

export type FormFields = Record<string, string | File | (string | File)[]>;

/**
 * A section's form posts: the CSRF token of the section's forms checked, the action taken, its
 * outcome recorded; a refused domain rule re-renders the section with the message (NOT_FOUND
 * is the not-found page), anything else is a fault the app's error handler answers.
 */
export function formPosts(
  page: ConsolePage,
  options: {
    readonly purpose: string;
    record(event: FormEvent): Promise<void>;
    rerender(c: Context, signed: SignedIn, status: PageStatus, message: string): Promise<Response>;
  },
) {
  return (tool: string, act: (c: Context, signed: SignedIn, form: FormFields) => Promise<Response>) =>
    page.signedIn(async (c, signed) => {
      const form = await c.req.parseBody({ all: true });
      if (!csrfOk(signed.session, options.purpose, form.csrf)) {
        await options.record({ tool, ok: false, code: 'FORBIDDEN', personId: signed.person.id });
        return page.refused(c, signed);
      }
      try {
        const answer = await act(c, signed, form);
        await options.record({ tool, ok: true, personId: signed.person.id });
        return answer;
      } catch (error) {
        if (!isDomainError(error)) throw error;
        await options.record({ tool, ok: false, code: error.code, personId: signed.person.id });
        if (error.code === 'NOT_FOUND') return page.notFound(c, signed);
        const status = pageStatusOf(error.code);
        return options.rerender(c, signed, status, error.message);
      }
    });
}

/** Every value a form field was given, strings only. */
export const formStrings = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');

/**
 * The POST of one item's page (an approval, a booking): the CSRF token of that item's form
 * checked, the asked action read (refused when there is none), taken, and the person sent to
 * where the action says. A refused domain rule shows the item again with the message.
 */
export function itemPost<Asked>(
  page: ConsolePage,
  options: {
    readonly purpose: (id: string) => string;
    /** Kept in the audit trail: a POST refused before anything was tried. */
    refused(reason: string, signed: SignedIn): Promise<void>;
    read(form: FormFields): Asked | null;
    /** Takes the action; answers where to go next. */
    act(id: string, asked: Asked, signed: SignedIn): Promise<string>;
    rerender(
      c: Context,
      signed: SignedIn,
      id: string,
      status: PageStatus,
      message: string,
    ): Promise<Response>;
  },
) {
  return page.signedIn(async (c, signed) => {
    const id = c.req.param('id') ?? '';
    const form = await c.req.parseBody();
    if (!csrfOk(signed.session, options.purpose(id), form.csrf)) {
      await options.refused('no valid CSRF token', signed);
      return page.refused(c, signed);
    }
    const asked = options.read(form);
    if (asked === null) {
      await options.refused('no action asked', signed);
      return page.refused(c, signed);
    }
    try {
      return c.redirect(await options.act(id, asked, signed), 303);
    } catch (error) {
      if (!isDomainError(error)) throw error;
      if (error.code === 'NOT_FOUND') return page.notFound(c, signed);
      return options.rerender(c, signed, id, pageStatusOf(error.code), error.message);
    }
  });
}
