import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { SignedIn } from '../../app/identity/sessions.js';
import { csrfToken } from './human-session.js';

/**
 * The frame of the pages outside the console (sign-in, setup, account, consent): the console's
 * own stylesheet (no inline style: the CSP allows only this site's files), its header and a
 * main landmark, so a person sees one design from the first sign-in on.
 */
export function layout(title: string, body: HtmlEscapedString | Promise<HtmlEscapedString>) {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Holdfast</title>
        <link rel="stylesheet" href="/assets/console.css" />
      </head>
      <body class="plain">
        <a class="skip" href="#main">Skip to content</a>
        <header class="bar">
          <a class="brand" href="/console">Holdfast</a>
        </header>
        <main id="main">${body}</main>
      </body>
    </html>`;
}

/** The sign-out button, for pages a signed-in person sees. */
export function signOutForm(signed: SignedIn) {
  return html`<form method="post" action="/logout" class="muted">
    Signed in as ${signed.person.email} (${signed.person.role}) · <a href="/console">console</a> ·
    <a href="/account">your account and passkeys</a>
    <input type="hidden" name="csrf" value="${csrfToken(signed.session, 'logout')}" />
    <button type="submit">Sign out</button>
  </form>`;
}
