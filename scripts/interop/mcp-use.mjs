// mcp-use (1.34, tools/interop) through the scenario, over HTTP with a token and over stdio:
// an MCPClient from a config dict, one session, and the session's own calls.
import { load } from '../../tools/interop/load.mjs';
import { driverMain } from './scenario.mjs';

const { MCPClient } = await load('mcp-use/client');

driverMain((job) => {
  const server =
    job.transport === 'http'
      ? { url: job.url, headers: { Authorization: `Bearer ${job.token}` } }
      : { command: job.stdio.command, args: job.stdio.args };
  const client = MCPClient.fromDict({ mcpServers: { holdfast: server } });
  let session;
  return {
    async connect() {
      session = await client.createSession('holdfast');
    },
    async listToolNames() {
      return session.tools.map((t) => t.name);
    },
    async listResources() {
      return (await session.listResources()).resources;
    },
    async listPrompts() {
      return (await session.listPrompts()).prompts;
    },
    async callTool(name, args) {
      const result = await session.callTool(name, args);
      return {
        envelope: result.structuredContent,
        text: (result.content ?? []).map((c) => c.text ?? '').join('\n'),
      };
    },
    async close() {
      await client.closeAllSessions();
    },
  };
});
