import { UsageError } from './usage-error.js';

/** What seed 004's variables set: the public base URL, and browser Origins allowed beside its own. */
export interface AgentAccessEnv {
  readonly publicBaseUrl: string | null;
  readonly allowedOrigins: readonly string[];
}

/**
 * agent-access (seed 004) names its settings MCP_PUBLIC_URL (the OAuth resource: its path is
 * /mcp, https in production), MCP_WEB_URL (where people authorize and confirm: https in
 * production) and MCP_ALLOWED_ORIGINS (exact browser Origins, comma-separated, no wildcard).
 * Holdfast's people's pages live at the resource's own origin, so MCP_WEB_URL must name that
 * origin; a web entry elsewhere would send people to pages this server does not serve, so it is
 * refused at start rather than ignored. `publicUrl` is --public-url / HOLDFAST_PUBLIC_URL.
 */
export function readAgentAccessEnv(
  env: NodeJS.ProcessEnv,
  publicUrl: string | null,
  production: boolean,
): AgentAccessEnv {
  const resource = env.MCP_PUBLIC_URL ? parsed('MCP_PUBLIC_URL', env.MCP_PUBLIC_URL, production) : null;
  if (resource && !/\/mcp\/?$/.test(resource.pathname))
    throw new UsageError(`MCP_PUBLIC_URL must be the resource, ending in /mcp; got "${env.MCP_PUBLIC_URL}"`);
  const base = resource ? resource.href.replace(/\/mcp\/?$/, '') : null;
  if (base && publicUrl && base.replace(/\/+$/, '') !== publicUrl.replace(/\/+$/, ''))
    throw new UsageError(`MCP_PUBLIC_URL (${env.MCP_PUBLIC_URL}) and --public-url (${publicUrl}) disagree`);
  const served = base ?? publicUrl;
  if (env.MCP_WEB_URL) {
    const web = parsed('MCP_WEB_URL', env.MCP_WEB_URL, production);
    if (!served || web.origin !== new URL(served).origin)
      throw new UsageError(
        `MCP_WEB_URL=${env.MCP_WEB_URL}: Holdfast serves the pages people authorize and confirm on at the server's own origin${served ? ` (${new URL(served).origin})` : ''}; set MCP_WEB_URL to it, or leave it unset`,
      );
  }
  return { publicBaseUrl: served, allowedOrigins: origins(env.MCP_ALLOWED_ORIGINS) };
}

function parsed(name: string, value: string, production: boolean): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${name} must be a URL, got "${value}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UsageError(`${name} must be an http(s) URL, got "${value}"`);
  if (production && url.protocol !== 'https:') throw new UsageError(`${name} must be https in production`);
  return url;
}

/** Exact Origins (scheme, host and port, nothing else); a wildcard or a path is refused. */
function origins(list: string | undefined): string[] {
  if (!list) return [];
  return list
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '')
    .map((origin) => {
      const url = URL.canParse(origin) ? new URL(origin) : null;
      if (
        origin.includes('*') ||
        !url ||
        url.origin.toLowerCase() !== origin.toLowerCase().replace(/\/$/, '')
      )
        throw new UsageError(
          `MCP_ALLOWED_ORIGINS takes exact Origins (scheme://host[:port]), comma-separated, no wildcard; got "${origin}"`,
        );
      return url.origin.toLowerCase();
    });
}
