import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdThenAskToConfirm } from '../support/fixtures.js';

const run = promisify(execFile);
const MCPB = join(process.cwd(), 'node_modules/@anthropic-ai/mcpb/dist/cli/cli.js');
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  version: string;
  mcpName: string;
  name: string;
};

// The registry's server.json schema (test/fixtures/schemas/server.schema.json; SOURCES.md says where from).
const ajv = new Ajv({ strict: false, allErrors: true });
const validEntry = ajv.compile(JSON.parse(readFileSync('test/fixtures/schemas/server.schema.json', 'utf8')));

interface Manifest {
  server: { mcp_config: { command: string; args: string[]; env: Record<string, string> } };
  user_config: Record<string, { required?: boolean }>;
  tools: { name: string }[];
  prompts: { name: string; text: string }[];
  compatibility: { runtimes: { node: string } };
}

// `npm run bundle`'s script, into a folder of the test's own.
let dir: string;
let bundle: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'holdfast-bundle-test-'));
  await run(process.execPath, ['scripts/bundle-mcpb.mjs', '--out', join(dir, 'out')]);
  bundle = join(dir, 'out', 'holdfast.mcpb');
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the desktop bundle (MCPB)', () => {
  it('unpacks into an empty folder, passes the mcpb tool, and books when launched exactly as its manifest says', async () => {
    const unpacked = join(dir, 'installed');
    await run(process.execPath, [MCPB, 'unpack', bundle, unpacked]);
    const validated = await run(process.execPath, [MCPB, 'validate', join(unpacked, 'manifest.json')]);
    expect(validated.stdout).toMatch(/validation passes/i);
    const manifest = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8')) as Manifest;
    expect(Object.keys(manifest.user_config).sort()).toEqual(['data_directory', 'email']);
    expect(manifest.compatibility.runtimes.node).toContain(`>=${process.versions.node.split('.')[0]}.`);
    // What a desktop host does: the user's answers and the bundle's folder into the command line.
    const data = join(dir, 'a new data folder');
    const filled = (value: string) =>
      value
        .replaceAll('${__dirname}', unpacked)
        .replaceAll('${user_config.email}', 'desk@example.com')
        .replaceAll('${user_config.data_directory}', data);
    const { command, args, env } = manifest.server.mcp_config;
    const transport = new StdioClientTransport({
      command,
      args: args.map(filled),
      env: { PATH: process.env.PATH!, ...env },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
    const client = new Client({ name: 'desktop-host', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(manifest.tools.map((t) => t.name)).toEqual(tools.map((t) => t.name));
      const { prompts } = await client.listPrompts();
      expect(manifest.prompts.map((p) => p.name)).toEqual(prompts.map((p) => p.name));
      expect(manifest.prompts.find((p) => p.name === 'find_a_time')!.text).toContain('${arguments.calendar}');
      const refused = await holdThenAskToConfirm(client);
      expect(refused.error?.code).toBe('APPROVAL_REQUIRED');
      expect(String(refused.error?.details.approveUrl)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    } finally {
      await client.close();
    }
    // The person named in the settings became the owner, with a link to set their password.
    expect(stderr).toMatch(
      /"email":"desk@example.com","setupUrl":"http:\/\/127\.0\.0\.1:\d+\/setup\/hf_setup_[\w-]+","message":"created the owner named by --as/,
    );
    expect(existsSync(join(data, 'holdfast.db'))).toBe(true);
  }, 60_000);

  it("the registry entry it wrote names it by its SHA-256, and is valid against the registry's schema", () => {
    const entry = JSON.parse(readFileSync(join(dir, 'out', 'server.json'), 'utf8')) as {
      packages: { registryType: string; fileSha256?: string }[];
    };
    expect(validEntry(entry), JSON.stringify(validEntry.errors)).toBe(true);
    const sha = createHash('sha256').update(readFileSync(bundle)).digest('hex');
    expect(entry.packages.find((p) => p.registryType === 'mcpb')?.fileSha256).toBe(sha);
  });
});

describe('server.json, the MCP Registry entry', () => {
  it('is valid against the schema and names this package, its version and its remote form with the header it needs', () => {
    const entry = JSON.parse(readFileSync('server.json', 'utf8')) as Record<string, any>;
    expect(validEntry(entry), JSON.stringify(validEntry.errors)).toBe(true);
    expect(entry.name).toBe(pkg.mcpName);
    expect(entry.version).toBe(pkg.version);
    expect(entry.packages[0]).toMatchObject({
      registryType: 'npm',
      identifier: pkg.name,
      version: pkg.version,
    });
    expect(entry.remotes[0]).toMatchObject({ type: 'streamable-http', url: 'https://{host}/mcp' });
    expect(entry.remotes[0].headers[0]).toMatchObject({ name: 'Authorization', isSecret: true });
  });

  it('the schema refuses what the registry refuses (a version of "latest", a name without a namespace)', () => {
    const entry = JSON.parse(readFileSync('server.json', 'utf8')) as Record<string, any>;
    expect(validEntry({ ...entry, name: 'holdfast' })).toBe(false);
    expect(validEntry({ ...entry, packages: [{ ...entry.packages[0], version: 'latest' }] })).toBe(false);
  });
});
