import { describe, expect, it } from 'vitest';
import {
  oauthSnippets,
  stdioSnippets,
  tokenSnippets,
} from '../../../src/adapters/http/console/connect-snippets.js';

const URL = 'https://book.example.com/mcp';
const HOSTS = ['claude-code', 'claude-desktop', 'cursor', 'vscode', 'inspector'];
const byId = (snippets: { id: string; text: string }[]) => new Map(snippets.map((s) => [s.id, s.text]));

/** The words a POSIX shell would pass for a command line of plain and single-quoted words. */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) =>
    m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]!,
  );
}

describe('what a person pastes into each agent host', () => {
  it('with a token: every host gets the address and the bearer token where it reads them', () => {
    const token = "hf_pat_abc'def";
    const s = byId(tokenSnippets(URL, token));
    expect([...s.keys()]).toEqual(HOSTS);
    expect(shellWords(s.get('claude-code')!)).toEqual([
      'claude',
      'mcp',
      'add',
      '--transport',
      'http',
      'holdfast',
      URL,
      '--header',
      `Authorization: Bearer ${token}`,
    ]);
    const desktop = JSON.parse(s.get('claude-desktop')!);
    expect(desktop.mcpServers.holdfast.args).toEqual([
      '-y',
      'mcp-remote',
      URL,
      '--header',
      'Authorization:${HOLDFAST_AUTH}',
    ]);
    expect(desktop.mcpServers.holdfast.env).toEqual({ HOLDFAST_AUTH: `Bearer ${token}` });
    expect(JSON.parse(s.get('cursor')!)).toEqual({
      mcpServers: { holdfast: { url: URL, headers: { Authorization: `Bearer ${token}` } } },
    });
    const vscode = JSON.parse(s.get('vscode')!);
    expect(vscode.servers.holdfast).toMatchObject({ type: 'http', url: URL });
    // VS Code keeps the token in its secret store: the file names the input, not the secret.
    expect(s.get('vscode')).not.toContain(token);
    expect(vscode.inputs[0]).toMatchObject({ id: 'holdfast-token', password: true });
    expect(shellWords(s.get('inspector')!)).toEqual([
      'npx',
      '@modelcontextprotocol/inspector',
      '--cli',
      URL,
      '--transport',
      'http',
      '--header',
      `Authorization: Bearer ${token}`,
      '--method',
      'tools/list',
    ]);
  });

  it('through OAuth: the address alone, no token anywhere', () => {
    const s = byId(oauthSnippets(URL));
    expect([...s.keys()]).toEqual(HOSTS);
    expect(shellWords(s.get('claude-code')!)).toEqual([
      'claude',
      'mcp',
      'add',
      '--transport',
      'http',
      'holdfast',
      URL,
    ]);
    expect(s.get('claude-desktop')).toBe(URL);
    expect(JSON.parse(s.get('cursor')!)).toEqual({ mcpServers: { holdfast: { url: URL } } });
    expect(JSON.parse(s.get('vscode')!)).toEqual({ servers: { holdfast: { type: 'http', url: URL } } });
    for (const text of s.values()) expect(text).not.toMatch(/Bearer|token/i);
  });

  it('over stdio: the host starts Holdfast on its database, acting for the person', () => {
    const command = [
      'node',
      '/opt/holdfast/dist/bin/holdfast.js',
      'stdio',
      '--db',
      '/srv/my data/holdfast.db',
    ];
    const s = byId(stdioSnippets(command, 'ana@example.com'));
    const expected = [...command, '--as', 'ana@example.com'];
    expect(shellWords(s.get('claude-code')!)).toEqual([
      'claude',
      'mcp',
      'add',
      'holdfast',
      '--',
      ...expected,
    ]);
    const config = { command: 'node', args: expected.slice(1) };
    expect(JSON.parse(s.get('claude-desktop')!)).toEqual({ mcpServers: { holdfast: config } });
    expect(JSON.parse(s.get('cursor')!)).toEqual({ mcpServers: { holdfast: config } });
    expect(JSON.parse(s.get('vscode')!)).toEqual({ servers: { holdfast: { type: 'stdio', ...config } } });
    expect(shellWords(s.get('inspector')!)).toEqual([
      'npx',
      '@modelcontextprotocol/inspector',
      '--cli',
      '--method',
      'tools/list',
      '--',
      ...expected,
    ]);
  });
});
