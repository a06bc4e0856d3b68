// The baseline: the same SDK entry (createMcpHandler), the same Hono + node-server transport,
// one tool that does nothing. Prints its URL on stderr like Holdfast does.
import { serve } from '@hono/node-server';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { Hono } from 'hono';
import { z } from 'zod';

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'noop', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool(
    'noop',
    { description: 'does nothing', inputSchema: z.object({}), outputSchema: z.object({ ok: z.boolean() }) },
    async () => ({ content: [{ type: 'text', text: '{"ok":true}' }], structuredContent: { ok: true } }),
  );
  return server;
});
const app = new Hono();
app.post('/mcp', (c) => handler.fetch(c.req.raw));
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  process.stderr.write(`${JSON.stringify({ url: `http://127.0.0.1:${info.port}/mcp` })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
