// The stdio baseline: the same SDK, one tool that does nothing, on stdin/stdout.
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

serveStdio(
  () => {
    const server = new McpServer({ name: 'noop', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.registerTool(
      'noop',
      { description: 'does nothing', inputSchema: z.object({}), outputSchema: z.object({ ok: z.boolean() }) },
      async () => ({ content: [{ type: 'text', text: '{"ok":true}' }], structuredContent: { ok: true } }),
    );
    return server;
  },
  { transport: new StdioServerTransport(process.stdin, process.stdout) },
);
process.stdin.once('end', () => process.exit(0));
