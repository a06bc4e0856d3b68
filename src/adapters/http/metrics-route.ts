import type { AuthInfo } from '@modelcontextprotocol/server';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import type { Registry } from 'prom-client';
import type { Principal } from '../../domain/calendar.js';
import type { PageApp } from './http-app.js';

export interface MetricsMount {
  readonly registry: Registry;
  /** The bearer gate of /mcp: a token with the `sensitive` scope (an owner's) may scrape from afar. */
  readonly authenticate: (request: Request) => Promise<AuthInfo | Response>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** A scrape straight from this machine: a loopback peer, and no proxy in between. */
function fromThisMachine(c: Context): boolean {
  if (c.req.header('x-forwarded-for') || c.req.header('forwarded')) return false;
  try {
    return LOOPBACK.has(getConnInfo(c).remote.address ?? '');
  } catch {
    return false;
  }
}

/**
 * GET /metrics in Prometheus text format: for a scraper on this machine, or one sending an
 * owner's token (`sensitive` scope); anything else gets the gate's 401 or a 403.
 */
export function mountMetrics(app: PageApp, metrics: MetricsMount): void {
  app.get('/metrics', async (c) => {
    if (!fromThisMachine(c)) {
      const auth = await metrics.authenticate(c.req.raw);
      if (auth instanceof Response) return auth;
      const principal = auth.extra?.principal as Principal | undefined;
      if (!principal?.scopes.includes('sensitive'))
        return c.json({ error: 'forbidden', message: 'Metrics need a token with the sensitive scope.' }, 403);
    }
    return c.body(await metrics.registry.metrics(), 200, { 'content-type': metrics.registry.contentType });
  });
}
