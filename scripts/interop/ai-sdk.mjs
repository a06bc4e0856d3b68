// The Vercel AI SDK's MCP client (@ai-sdk/mcp 2.0, tools/interop) through the scenario, over
// HTTP with a token and over stdio. Tools are called as an AI SDK app calls them: through the
// tool set `tools()` builds from tools/list (schemas converted), each with its `execute`.
import { load } from '../../tools/interop/load.mjs';
import { driverMain } from './scenario.mjs';

const { createMCPClient } = await load('@ai-sdk/mcp');
const { StdioMCPTransport } = await load('@ai-sdk/mcp/mcp-stdio');

driverMain((job) => {
  let client;
  let tools;
  return {
    async connect() {
      const transport =
        job.transport === 'http'
          ? { type: 'http', url: job.url, headers: { Authorization: `Bearer ${job.token}` } }
          : new StdioMCPTransport({ command: job.stdio.command, args: job.stdio.args, stderr: 'ignore' });
      client = await createMCPClient({ transport, clientName: 'holdfast-interop-ai-sdk' });
    },
    async listToolNames() {
      tools = await client.tools();
      return Object.keys(tools);
    },
    async listResources() {
      return (await client.listResources()).resources;
    },
    async listPrompts() {
      return (await client.listPrompts()).prompts;
    },
    async callTool(name, args) {
      const tool = tools?.[name];
      if (!tool) throw new Error(`no ${name} in the tool set`);
      const result = await tool.execute(args, { toolCallId: `call-${name}`, messages: [] });
      return {
        envelope: result.structuredContent,
        text: (result.content ?? []).map((c) => c.text ?? '').join('\n'),
      };
    },
    async close() {
      await client?.close();
    },
  };
});
