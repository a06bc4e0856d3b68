/**
 * What a person pastes into an agent host to reach Holdfast: per host, where it goes and the
 * text. Pure: the console renders them, a test checks each is what that host reads.
 */

export interface Snippet {
  /** Stable, for element ids: claude-code, claude-desktop, cursor, vscode, inspector. */
  readonly id: string;
  readonly host: string;
  /** Where the text goes, in words. */
  readonly where: string;
  readonly text: string;
}

/** Where this server's agents connect. */
export interface ConnectInfo {
  /** The MCP address over HTTP; null where this process speaks MCP over stdio only. */
  readonly mcpUrl: string | null;
  /** Whether hosts can sign a person in through OAuth instead of pasting a token. */
  readonly oauth: boolean;
  /** The command a host runs to start Holdfast over stdio (its database named), before `--as`. */
  readonly stdioCommand: readonly string[];
}

const json = (value: unknown) => JSON.stringify(value, null, 2);
/** A shell word: quoted unless it is plainly safe. */
const word = (text: string) => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);

/** Hosts that send a bearer token with every request to the HTTP address. */
export function tokenSnippets(url: string, token: string): Snippet[] {
  const bearer = `Bearer ${token}`;
  return [
    {
      id: 'claude-code',
      host: 'Claude Code',
      where: 'Run in a terminal:',
      text: `claude mcp add --transport http holdfast ${word(url)} --header ${word(`Authorization: ${bearer}`)}`,
    },
    {
      id: 'claude-desktop',
      host: 'Claude Desktop',
      where:
        'Settings → Developer → Edit Config (claude_desktop_config.json), through the mcp-remote bridge:',
      text: json({
        mcpServers: {
          holdfast: {
            command: 'npx',
            args: ['-y', 'mcp-remote', url, '--header', 'Authorization:${HOLDFAST_AUTH}'],
            env: { HOLDFAST_AUTH: bearer },
          },
        },
      }),
    },
    {
      id: 'cursor',
      host: 'Cursor',
      where: '~/.cursor/mcp.json (or .cursor/mcp.json in a project):',
      text: json({ mcpServers: { holdfast: { url, headers: { Authorization: bearer } } } }),
    },
    {
      id: 'vscode',
      host: 'VS Code',
      where: '.vscode/mcp.json (VS Code asks for the token once and keeps it):',
      text: json({
        inputs: [
          { type: 'promptString', id: 'holdfast-token', description: 'Holdfast token', password: true },
        ],
        servers: {
          holdfast: {
            type: 'http',
            url,
            headers: { Authorization: 'Bearer ${input:holdfast-token}' },
          },
        },
      }),
    },
    {
      id: 'inspector',
      host: 'MCP Inspector',
      where: 'Run in a terminal (lists the tools):',
      text: `npx @modelcontextprotocol/inspector --cli ${word(url)} --transport http --header ${word(`Authorization: ${bearer}`)} --method tools/list`,
    },
  ];
}

/** Hosts that find the sign-in from the address alone (OAuth): no token is pasted anywhere. */
export function oauthSnippets(url: string): Snippet[] {
  return [
    {
      id: 'claude-code',
      host: 'Claude Code',
      where: 'Run in a terminal, then /mcp in Claude Code to sign in:',
      text: `claude mcp add --transport http holdfast ${word(url)}`,
    },
    {
      id: 'claude-desktop',
      host: 'Claude Desktop',
      where: 'Settings → Connectors → Add custom connector, with this address:',
      text: url,
    },
    {
      id: 'cursor',
      host: 'Cursor',
      where: '~/.cursor/mcp.json; Cursor opens the sign-in:',
      text: json({ mcpServers: { holdfast: { url } } }),
    },
    {
      id: 'vscode',
      host: 'VS Code',
      where: '.vscode/mcp.json; VS Code opens the sign-in:',
      text: json({ servers: { holdfast: { type: 'http', url } } }),
    },
    {
      id: 'inspector',
      host: 'MCP Inspector',
      where: 'Run, then choose Streamable HTTP, this address, and Open Auth Settings → Quick OAuth Flow:',
      text: 'npx @modelcontextprotocol/inspector',
    },
  ];
}

/** Hosts that start Holdfast themselves over stdio, acting for the person signed in. */
export function stdioSnippets(command: readonly string[], email: string): Snippet[] {
  const [program, ...args] = [...command, '--as', email];
  const line = [program!, ...args].map(word).join(' ');
  const config = { command: program, args };
  return [
    {
      id: 'claude-code',
      host: 'Claude Code',
      where: 'Run in a terminal:',
      text: `claude mcp add holdfast -- ${line}`,
    },
    {
      id: 'claude-desktop',
      host: 'Claude Desktop',
      where: 'Settings → Developer → Edit Config (claude_desktop_config.json):',
      text: json({ mcpServers: { holdfast: config } }),
    },
    {
      id: 'cursor',
      host: 'Cursor',
      where: '~/.cursor/mcp.json:',
      text: json({ mcpServers: { holdfast: config } }),
    },
    {
      id: 'vscode',
      host: 'VS Code',
      where: '.vscode/mcp.json:',
      text: json({ servers: { holdfast: { type: 'stdio', ...config } } }),
    },
    {
      id: 'inspector',
      host: 'MCP Inspector',
      where: 'Run in a terminal (lists the tools):',
      text: `npx @modelcontextprotocol/inspector --cli --method tools/list -- ${line}`,
    },
  ];
}
