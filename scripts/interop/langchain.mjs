// LangChain's MCP adapters (@langchain/mcp-adapters 1.1, tools/interop) through the scenario,
// over HTTP with a token and over stdio. Tools are the LangChain tools getTools() builds,
// invoked with a tool call as an agent does: the envelope arrives as the message's
// `mcp_structured_content` artifact; a result with isError is thrown as a ToolException, whose
// text is all the agent gets. The adapters have no prompts/list.
import { load } from '../../tools/interop/load.mjs';
import { NotOffered, driverMain } from './scenario.mjs';

const { MultiServerMCPClient } = await load('@langchain/mcp-adapters');

driverMain((job) => {
  const server =
    job.transport === 'http'
      ? { transport: 'http', url: job.url, headers: { Authorization: `Bearer ${job.token}` } }
      : { transport: 'stdio', command: job.stdio.command, args: job.stdio.args, stderr: 'ignore' };
  const client = new MultiServerMCPClient({ mcpServers: { holdfast: server }, throwOnLoadError: true });
  let tools;
  return {
    async connect() {
      await client.initializeConnections();
    },
    async listToolNames() {
      tools = await client.getTools();
      return tools.map((t) => t.name);
    },
    async listResources() {
      return (await client.listResources('holdfast')).holdfast ?? [];
    },
    async listPrompts() {
      throw new NotOffered('no prompts/list in the adapters');
    },
    async callTool(name, args) {
      const tool = tools?.find((t) => t.name === name);
      if (!tool) throw new Error(`no ${name} among the tools`);
      try {
        const message = await tool.invoke({ type: 'tool_call', id: `call-${name}`, name, args });
        const structured = (message.artifact ?? []).find((a) => a.type === 'mcp_structured_content');
        const text = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
        return { envelope: structured?.data, text };
      } catch (error) {
        if (error?.name === 'ToolException') return { text: error.message };
        throw error;
      }
    },
    async close() {
      await client.close();
    },
  };
});
