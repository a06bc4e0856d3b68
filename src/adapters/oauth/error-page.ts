import type { KoaContextWithOIDC } from 'oidc-provider';

const escape = (value: unknown) => String(value).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** The authorization server's error page: what went wrong, in Holdfast's plain frame, never a stack. */
export function renderOAuthError(ctx: KoaContextWithOIDC, out: Record<string, unknown>): void {
  ctx.type = 'html';
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'self'; frame-ancestors 'none'");
  ctx.set('Cache-Control', 'no-store');
  ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not connected · Holdfast</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="/assets/console.css"></head>
<body class="plain"><header class="bar"><a class="brand" href="/console">Holdfast</a></header>
<main id="main"><h1 id="result">The agent host could not be connected.</h1>
<p><strong>${escape(out.error)}</strong>: ${escape(out.error_description ?? '')}</p>
<p>Start again from your agent host.</p></main></body></html>`;
}
