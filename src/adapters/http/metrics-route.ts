import type { AuthInfo } from '@modelcontextprotocol/server';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import type { Registry } from 'prom-client';
import type { Principal } from '../../domain/identity/principal.js';
import type { PageApp } from './page-app.js';

export interface MetricsMount {
  readonly registry: Registry;
  /** The bearer gate of /mcp: an owner's token of the operator's tenant may scrape from afar. */
  readonly authenticate: (request: Request) => Promise<AuthInfo | Response>;
  /** The deployment's own tenant (`--tenant`): metrics span every tenant, so only its owners see them. */
  readonly operatorTenant: string;
  /** Behind a proxy (`--trust-proxy`) every request comes from loopback: none is local. */
  readonly trustProxy: boolean;
}

/** Headers a proxy adds; any of them, even empty, means the request was relayed. */
const RELAYED = ['x-forwarded-for', 'forwarded', 'x-real-ip', 'x-forwarded-host', 'x-forwarded-proto', 'via'];

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** A scrape straight from this machine: a loopback peer, and no proxy in between. */
function fromThisMachine(c: Context, trustProxy: boolean): boolean {
  if (trustProxy || RELAYED.some((name) => c.req.header(name) !== undefined)) return false;
  try {
    return LOOPBACK.has(getConnInfo(c).remote.address ?? '');
  } catch {
    return false;
  }
}

/**
 * GET /metrics in Prometheus text format: for a scraper on this machine, or one sending a token
 * of an owner of the operator's tenant (`sensitive` scope); anything else gets 401 or 403.
 */
export function mountMetrics(app: PageApp, metrics: MetricsMount): void {
  app.get('/metrics', async (c) => {
    if (!fromThisMachine(c, metrics.trustProxy)) {
      const auth = await metrics.authenticate(c.req.raw);
      if (auth instanceof Response) return auth;
      const principal = auth.extra?.principal as Principal | undefined;
      if (!principal?.scopes.includes('sensitive') || principal.tenantId !== metrics.operatorTenant)
        return c.json(
          {
            error: 'forbidden',
            message: "Metrics need an owner's token (sensitive scope) of the operator's tenant.",
          },
          403,
        );
    }
    return c.body(await metrics.registry.metrics(), 200, { 'content-type': metrics.registry.contentType });
  });
}
