import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { SignedIn } from '../../app/identity/sessions.js';
import { csrfToken } from './human-session.js';

/** The frame of every page a person sees: no scripts, one inline stylesheet. */
export function layout(title: string, body: HtmlEscapedString | Promise<HtmlEscapedString>) {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Holdfast</title>
        <style>
          body {
            font:
              16px/1.5 system-ui,
              sans-serif;
            max-width: 40rem;
            margin: 2rem auto;
            padding: 0 1rem;
            color: #1b1b1b;
          }
          table {
            border-collapse: collapse;
            width: 100%;
          }
          td,
          th {
            text-align: left;
            padding: 0.35rem 0.5rem;
            border-bottom: 1px solid #ddd;
            vertical-align: top;
          }
          button {
            font: inherit;
            padding: 0.6rem 1.4rem;
            margin-right: 0.8rem;
            border-radius: 0.4rem;
            border: 1px solid #555;
            cursor: pointer;
          }
          .approve {
            background: #1d6b38;
            color: #fff;
            border-color: #1d6b38;
          }
          .deny {
            background: #fff;
          }
          .stale {
            background: #fff4d6;
            padding: 0.6rem;
            border-left: 4px solid #b7791f;
          }
          .muted {
            color: #666;
            font-size: 0.9rem;
          }
          code {
            word-break: break-all;
          }
        </style>
      </head>
      <body>
        ${body}
      </body>
    </html>`;
}

/** The sign-out button, for pages a signed-in person sees. */
export function signOutForm(signed: SignedIn) {
  return html`<form method="post" action="/logout" class="muted">
    Signed in as ${signed.person.email} (${signed.person.role}) · <a href="/account">passkeys</a>
    <input type="hidden" name="csrf" value="${csrfToken(signed.session, 'logout')}" />
    <button type="submit">Sign out</button>
  </form>`;
}
