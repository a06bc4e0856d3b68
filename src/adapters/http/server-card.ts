import type { PageApp } from './page-app.js';
import { createHash } from 'node:crypto';

export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
const MEDIA_TYPE = 'application/mcp-server-card+json';
// The card changes only with an upgrade or a restart with other options.
const CACHE_CONTROL = 'public, max-age=3600';

export interface ServerCardFacts {
  /** The registry name (package.json's mcpName), reverse-DNS. */
  readonly name: string;
  readonly version: string;
  /** The MCP endpoint people's hosts connect to (the public URL's /mcp). */
  readonly mcpUrl: string;
  readonly protocolVersions: readonly string[];
  readonly profile: string;
  readonly toolMode: string;
  readonly scopes: readonly string[];
  readonly surface: {
    readonly tools: readonly object[];
    readonly resourceTemplates: readonly object[];
    readonly prompts: readonly object[];
  };
}

/**
 * The Server Card (SEP-2127): what a host may learn before it connects. The format's own fields
 * say where to connect and with which header; what Holdfast offers (tools, resource templates,
 * prompts, its profile) and how to get a token ride in `_meta` under its registry name, as the
 * format leaves room for. No secret is in it: the header says a token is needed, never which.
 */
export function serverCard(facts: ServerCardFacts): Record<string, unknown> {
  const base = facts.mcpUrl.replace(/\/mcp$/, '');
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: facts.name,
    version: facts.version,
    title: 'Holdfast',
    description: 'Booking for AI agents: hold time, confirm after a person approves; never double-booked.',
    remotes: [
      {
        type: 'streamable-http',
        url: facts.mcpUrl,
        supportedProtocolVersions: [...facts.protocolVersions],
        headers: [
          {
            name: 'Authorization',
            description:
              "A person's Holdfast token (holdfast tokens create EMAIL) or an OAuth access token from this server's authorization server.",
            isRequired: true,
            isSecret: true,
            value: 'Bearer {token}',
            variables: { token: { description: 'The token', isRequired: true, isSecret: true } },
          },
        ],
      },
    ],
    _meta: {
      [facts.name]: {
        profile: facts.profile,
        toolMode: facts.toolMode,
        authorization: {
          protectedResourceMetadata: `${base}/.well-known/oauth-protected-resource/mcp`,
          authorizationServer: base,
          scopesSupported: [...facts.scopes],
        },
        ...facts.surface,
      },
    },
  };
}

/**
 * Serves the card where the format reserves it (the MCP endpoint's /server-card) and at the
 * well-known path: cacheable, with an ETag (If-None-Match answers 304), readable from any origin.
 * It is built on first request, from the same definitions the server lists.
 */
export function mountServerCard(app: PageApp, load: () => Promise<Record<string, unknown>>): void {
  let built: Promise<{ body: string; etag: string }> | undefined;
  const card = () =>
    (built ??= load().then((value) => {
      const body = JSON.stringify(value);
      return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    }));
  const cors = {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Methods': 'GET',
    'Access-Control-Allow-Headers': 'Content-Type, If-None-Match',
    'Access-Control-Expose-Headers': 'ETag',
  };
  for (const path of ['/mcp/server-card', '/.well-known/mcp/server-card.json']) {
    app.options(path, (c) => c.body(null, 204, cors));
    app.get(path, async (c) => {
      const { body, etag } = await card();
      const headers = { ...cors, 'Cache-Control': CACHE_CONTROL, ETag: etag };
      if (c.req.header('if-none-match') === etag) return c.body(null, 304, headers);
      return c.body(body, 200, { ...headers, 'Content-Type': MEDIA_TYPE });
    });
  }
}
