// npm run bundle: Holdfast as a desktop extension (MCPB, formerly DXT) in dist/holdfast.mcpb, and
// its MCP Registry entry in dist/server.json (server.json with the bundle's SHA-256 added).
// The bundle holds the npm package as `npm pack` makes it, its production dependencies, and a
// manifest whose tools and prompts are what the packed server itself lists. better-sqlite3 is
// native: the bundle runs on the Node.js major and platform that built it (the manifest says so).
//   --release-url URL   where the .mcpb will be downloaded from (default: the GitHub release of this version)
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { localPrebuild } from './local-prebuild.mjs';

const root = resolve(import.meta.dirname, '..');
const { values } = parseArgs({ options: { 'release-url': { type: 'string' }, out: { type: 'string' } } });
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const out = resolve(values.out ?? join(root, 'dist'));
const work = mkdtempSync(join(tmpdir(), 'holdfast-mcpb-'));
const stage = join(work, 'bundle');
const server = join(stage, 'server');
const mcpb = join(root, 'node_modules/@anthropic-ai/mcpb/dist/cli/cli.js');
const run = (command, args, options = {}) =>
  execFileSync(command, args, { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', ...options });

try {
  // 1. The package as npm packs it (dist is built: npm run bundle builds first).
  const [{ filename }] = JSON.parse(
    run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: root }),
  );
  mkdirSync(server, { recursive: true });
  run('tar', ['-xzf', join(work, filename), '-C', server, '--strip-components=1']);
  // 2. Its production dependencies, beside it.
  run(
    'npm',
    [
      'install',
      '--omit=dev',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      '--loglevel=error',
    ],
    {
      cwd: server,
      env: { ...process.env, ...localPrebuild(join(work, 'prebuilds'), root) },
    },
  );
  // 3. The manifest, listing what the packed server lists.
  const entry = 'server/dist/bin/holdfast.js';
  writeFileSync(
    join(stage, 'manifest.json'),
    `${JSON.stringify(manifest(entry, await listed(join(stage, entry))), null, 2)}\n`,
  );
  run(process.execPath, [mcpb, 'validate', join(stage, 'manifest.json')]);
  // 4. The bundle, and the registry entry that names it by its hash.
  mkdirSync(out, { recursive: true });
  const bundle = join(out, 'holdfast.mcpb');
  rmSync(bundle, { force: true });
  run(process.execPath, [mcpb, 'pack', stage, bundle]);
  const sha = createHash('sha256').update(readFileSync(bundle)).digest('hex');
  const url =
    values['release-url'] ??
    `https://github.com/holdfast-dev/holdfast/releases/download/v${pkg.version}/holdfast.mcpb`;
  const entryJson = JSON.parse(readFileSync(join(root, 'server.json'), 'utf8'));
  entryJson.packages.push({
    registryType: 'mcpb',
    identifier: url,
    version: pkg.version,
    fileSha256: sha,
    transport: { type: 'stdio' },
  });
  writeFileSync(join(out, 'server.json'), `${JSON.stringify(entryJson, null, 2)}\n`);
  console.log(`${bundle}: ${(statSync(bundle).size / 1e6).toFixed(1)} MB, sha256 ${sha}`);
  console.log(`${join(out, 'server.json')}: the registry entry with it`);
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** Tools and prompts as the packed server lists them over stdio (an empty, throwaway database). */
async function listed(entry) {
  const client = new Client({ name: 'holdfast-bundle', version: pkg.version });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [entry, 'stdio', '--db', join(work, 'listing.db'), '--as', 'bundle@example.invalid', '--no-seed'],
      stderr: 'ignore',
    }),
  );
  try {
    const { tools } = await client.listTools();
    const { prompts } = await client.listPrompts();
    // A prompt's text in the manifest is the server's, rendered for `${arguments.X}` placeholders.
    const rendered = await Promise.all(
      prompts.map(async (prompt) => {
        const required = (prompt.arguments ?? []).filter((a) => a.required).map((a) => a.name);
        const args = Object.fromEntries(required.map((name) => [name, `\${arguments.${name}}`]));
        const { messages } = await client.getPrompt({ name: prompt.name, arguments: args });
        return {
          name: prompt.name,
          description: prompt.description,
          arguments: required,
          text: messages.map((m) => m.content.text).join('\n'),
        };
      }),
    );
    return { tools: tools.map(({ name, description }) => ({ name, description })), prompts: rendered };
  } finally {
    await client.close();
  }
}

function manifest(entry, { tools, prompts }) {
  const major = process.versions.node.split('.')[0];
  return {
    manifest_version: '0.3',
    name: 'holdfast',
    display_name: 'Holdfast',
    version: pkg.version,
    description: pkg.description,
    long_description:
      'Agents find free time, hold it while they talk to you, and confirm only after you approve that exact booking on a page Holdfast serves on this computer. Your calendars live in a SQLite database in the folder you choose.',
    author: { name: 'Holdfast developers' },
    license: pkg.license,
    keywords: ['booking', 'calendar', 'scheduling', 'appointments', 'approval'],
    server: {
      type: 'node',
      entry_point: entry,
      mcp_config: {
        command: 'node',
        args: [
          `\${__dirname}/${entry}`,
          'stdio',
          '--db',
          '${user_config.data_directory}/holdfast.db',
          '--as',
          '${user_config.email}',
        ],
        env: {},
      },
    },
    user_config: {
      email: {
        type: 'string',
        title: 'Your email',
        description:
          'The person the agent acts for. On a new database you become its owner; the first start logs a link that sets your password for the approval page.',
        required: true,
      },
      data_directory: {
        type: 'directory',
        title: 'Data folder',
        description: 'Where Holdfast keeps its database (holdfast.db) and audit key.',
        required: true,
        default: '${HOME}/.holdfast',
      },
    },
    tools,
    tools_generated: false,
    prompts,
    prompts_generated: false,
    compatibility: {
      platforms: [process.platform],
      // better-sqlite3 is compiled for one Node.js ABI: the major that built the bundle.
      runtimes: { node: `>=${major}.0.0 <${Number(major) + 1}.0.0` },
    },
  };
}
