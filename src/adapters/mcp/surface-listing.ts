import { Client } from '@modelcontextprotocol/client';
import type { McpServer } from '@modelcontextprotocol/server';
import { InMemoryTransport } from '@modelcontextprotocol/server';

/** What a server offers, as its own list answers say it: names and words, no schemas. */
export interface SurfaceListing {
  readonly tools: readonly { name: string; title?: string; description?: string }[];
  readonly resourceTemplates: readonly { uriTemplate: string; name: string; description?: string }[];
  readonly prompts: readonly { name: string; description?: string; arguments?: readonly string[] }[];
}

/**
 * Asks `server` for its tools, resource templates and prompts over an in-memory connection, so
 * a description of the server (the Server Card) is what a client listing it would get.
 */
export async function listSurface(server: McpServer): Promise<SurfaceListing> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'holdfast-server-card', version: '1' });
  await client.connect(clientSide);
  try {
    const [{ tools }, { resourceTemplates }, { prompts }] = await Promise.all([
      client.listTools(),
      client.listResourceTemplates(),
      client.listPrompts(),
    ]);
    return {
      tools: tools.map(({ name, title, description }) => ({ name, title, description })),
      resourceTemplates: resourceTemplates.map(({ uriTemplate, name, description }) => ({
        uriTemplate,
        name,
        description,
      })),
      prompts: prompts.map(({ name, description, arguments: args }) => ({
        name,
        description,
        arguments: args?.map((a) => a.name),
      })),
    };
  } finally {
    await client.close();
  }
}
