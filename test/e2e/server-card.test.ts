import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHttp } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';

// The Server Card (SEP-2127) of a running server, on each surface, checked against the format's
// schema (test/fixtures/schemas/server-card.schema.json, source in SOURCES.md) and against what
// the same server lists to a connected client.
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(JSON.parse(readFileSync('test/fixtures/schemas/server-card.schema.json', 'utf8')), 'card');
const validCard = ajv.getSchema('card#/$defs/ServerCard')!;

const SURFACES: Record<string, string[]> = {
  flat: [],
  catalog: ['--tools', 'catalog'],
  'hotel-ops': ['--profile', 'hotel-ops'],
};
const servers = new Map<string, RunningServer>();
beforeAll(async () => {
  await Promise.all(
    Object.entries(SURFACES).map(async ([surface, args]) =>
      servers.set(surface, await spawnServer(['--no-seed', ...args])),
    ),
  );
}, 60_000);
afterAll(() => Promise.all([...servers.values()].map((s) => s.stop())));

interface Card {
  name: string;
  version: string;
  remotes: {
    url: string;
    headers: { name: string; isSecret: boolean }[];
    supportedProtocolVersions: string[];
  }[];
  _meta: Record<
    string,
    {
      profile: string;
      tools: { name: string }[];
      prompts: { name: string }[];
      resourceTemplates: { uriTemplate: string }[];
      authorization: { protectedResourceMetadata: string };
    }
  >;
}

describe('the Server Card', () => {
  it.each(Object.keys(SURFACES))(
    '%s: valid against SEP-2127, and it offers exactly what the server lists to a client',
    async (surface) => {
      const server = servers.get(surface)!;
      const answer = await fetch(new URL('/mcp/server-card', server.url));
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('application/mcp-server-card+json');
      const card = (await answer.json()) as Card;
      expect(validCard(card), JSON.stringify(validCard.errors)).toBe(true);
      const { name, version, mcpName } = JSON.parse(readFileSync('package.json', 'utf8')) as {
        [field: string]: string;
      };
      expect(card).toMatchObject({ name: mcpName, version });
      expect(name).toBe('holdfast');
      expect(card.remotes[0]!.url).toBe(server.url);
      expect(card.remotes[0]!.headers[0]).toMatchObject({
        name: 'Authorization',
        isSecret: true,
        isRequired: true,
      });
      const offered = card._meta[mcpName!]!;
      const client = await connectHttp(server.url, 'modern');
      try {
        expect(offered.tools.map((t) => t.name)).toEqual((await client.listTools()).tools.map((t) => t.name));
        expect(offered.prompts.map((p) => p.name)).toEqual(
          (await client.listPrompts()).prompts.map((p) => p.name),
        );
        expect(offered.resourceTemplates.map((r) => r.uriTemplate)).toEqual(
          (await client.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate),
        );
      } finally {
        await client.close();
      }
      expect(offered.profile).toBe(surface === 'hotel-ops' ? 'hotel-ops' : 'standard');
      // Its authorization metadata is where it says.
      const metadata = await fetch(offered.authorization.protectedResourceMetadata);
      expect(((await metadata.json()) as { resource: string }).resource).toBe(server.url);
      // Nothing secret: the token the server's owner holds is nowhere in it.
      expect(JSON.stringify(card)).not.toContain(server.agent.token);
    },
    30_000,
  );

  it('is the same at /.well-known/mcp/server-card.json; cacheable, ETag and 304, readable from any origin', async () => {
    const server = servers.get('flat')!;
    const reserved = await fetch(new URL('/mcp/server-card', server.url));
    const wellKnown = await fetch(new URL('/.well-known/mcp/server-card.json', server.url));
    expect(await wellKnown.text()).toBe(await reserved.text());
    const etag = reserved.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(reserved.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(reserved.headers.get('access-control-allow-origin')).toBe('*');
    const again = await fetch(new URL('/mcp/server-card', server.url), {
      headers: { 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const stale = await fetch(new URL('/mcp/server-card', server.url), {
      headers: { 'if-none-match': '"other"' },
    });
    expect(stale.status).toBe(200);
    await stale.body?.cancel();
  });

  it('the schema check refuses a card that breaks the format', () => {
    expect(validCard({ name: 'holdfast', version: '1' })).toBe(false);
  });
});
