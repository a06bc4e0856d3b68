import type { KoaContextWithOIDC } from 'oidc-provider';

const escape = (value: unknown) => String(value).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** The authorization server's error page: what went wrong, in Holdfast's plain frame, never a stack. */
export function renderOAuthError(ctx: KoaContextWithOIDC, out: Record<string, unknown>): void {
  ctx.type = 'html';
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
  ctx.set('Cache-Control', 'no-store');
  ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not connected · Holdfast</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}</style></head>
<body><h1 id="result">The agent host could not be connected.</h1>
<p><strong>${escape(out.error)}</strong>: ${escape(out.error_description ?? '')}</p>
<p>Start again from your agent host.</p></body></html>`;
}
