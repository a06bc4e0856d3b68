import type { CommandDoc } from '../command-doc.js';

export const probeHelp: CommandDoc = {
  name: 'probe',
  usage: ['holdfast probe URL [--token T]', 'MCP_SERVER_URL=URL MCP_ACCESS_TOKEN=T holdfast probe'],
  summary:
    'What an agent host would see of a Holdfast server, read-only: health, OAuth metadata, protocol, tools, one read.',
  details: [
    'Nothing is written (the reads leave their audit records). Exit 0 when every step passed, 1 when one failed.',
    'The URL (the server, or its /mcp) comes from the argument or else the MCP_SERVER_URL variable.',
    'The token comes from --token or else the MCP_ACCESS_TOKEN variable. On the command line it is visible to other local users while the probe runs: prefer the variable, and a short-lived, read-only token.',
  ],
  options: ['token'],
  examples: [
    'holdfast probe https://holdfast.example.com --token hf_pat_…',
    'MCP_ACCESS_TOKEN=hf_pat_… holdfast probe https://holdfast.example.com',
    'MCP_SERVER_URL=https://holdfast.example.com/mcp MCP_ACCESS_TOKEN=hf_pat_… holdfast probe',
  ],
};
