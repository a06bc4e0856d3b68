import { existsSync, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Client } from '@modelcontextprotocol/client';
import { Client as McpClient } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHttp } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { CLI, runCli, spawnCli, spawnServer, untilSealed } from '../support/spawn-server.js';

/**
 * Seed 001, "bookings-mcp" (docs/contracts/seeds/001_e31d480a59766f8e.txt): what is not its tools
 * — the package, its scripts, its transports and its licence — against the spawned server under
 * `--profile bookings`. Its tools, answers and flows are test/contracts/profile-001-bookings.test.ts.
 * Each `it` names the inventory rows it proves (docs/contracts/001-bookings.md).
 */

const SEVEN = [
  'list_customers',
  'get_customer',
  'list_bookings',
  'check_availability',
  'request_approval',
  'create_booking',
  'cancel_booking',
];

let server: RunningServer;
let agent: Client;

const packageJson = () => JSON.parse(readFileSync('package.json', 'utf8')) as Record<string, any>;
const scripts = () => packageJson().scripts as Record<string, string>;

let serveHelpRun: ReturnType<typeof spawnCli> | undefined;
/** `holdfast serve --help`, run once. */
const serveHelp = async () => (await (serveHelpRun ??= spawnCli(['serve', '--help']))).stdout;

/** The official client over stdio, started as a host's configuration starts it. */
async function stdioHost(command: string, args: string[]) {
  const transport = new StdioClientTransport({ command, args, stderr: 'pipe' });
  let stderr = '';
  transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new McpClient({ name: 'claude-desktop-like', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

beforeAll(async () => {
  server = await spawnServer(['--profile', 'bookings']);
  agent = await connectHttp(server.url, 'modern');
});

afterAll(async () => {
  await agent?.close();
  await server?.stop();
});

describe('bookings-mcp: the package, its scripts and transports', () => {
  it('[001-stack-1] TypeScript, ESM, strict: true', () => {
    expect(packageJson().type).toBe('module');
    const tsconfig = JSON.parse(readFileSync('tsconfig.json', 'utf8')) as {
      compilerOptions: Record<string, unknown>;
    };
    expect(tsconfig.compilerOptions.strict).toBe(true);
    expect(existsSync('src/main/cli.ts')).toBe(true);
  });

  it('[001-stack-2 001-prereq-1] Node.js 20 or newer: the engines name no line below 20, and the CLI answers on this one', async () => {
    const majors = (packageJson().engines.node as string)
      .split('||')
      .map((part) => Number(/\d+/.exec(part)![0]));
    expect(Math.min(...majors)).toBeGreaterThanOrEqual(20);
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(20);
    const version = await spawnCli(['--version']);
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toContain(packageJson().version as string);
  });

  it('[001-stack-3] zod 4 validates the tools’ input: a wrong type is refused naming the field', async () => {
    expect(packageJson().dependencies.zod).toMatch(/^\^4\./);
    const refused = (await agent.callTool({ name: 'get_customer', arguments: { id: 'one' } })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toMatch(/^INVALID_ARGUMENTS: id/);
  });

  it('[001-stack-4] vitest 4 runs the tests', () => {
    expect(packageJson().devDependencies.vitest).toMatch(/^\^4\./);
    expect(existsSync('vitest.config.ts')).toBe(true);
  });

  it('[001-prereq-2 001-start-1] the repository ships a package-lock.json, so `npm ci` works (or `npm install`)', () => {
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as Record<string, any>;
    expect(lock.name).toBe('holdfast');
    expect(lock.lockfileVersion).toBeGreaterThanOrEqual(2);
    // The lock names every dependency package.json asks for, at the version it asks for.
    for (const name of Object.keys(packageJson().dependencies as Record<string, string>))
      expect(lock.packages[`node_modules/${name}`]?.version, name).toEqual(expect.any(String));
  });

  it('[001-start-2 001-start-3 001-start-7] `npm run build` compiles src/ to dist/ with tsc, `npm test` runs the vitest suite once, `npm run typecheck` is tsc without emitting', () => {
    expect(scripts().build).toMatch(/^tsc -p tsconfig\.json /);
    const tsconfig = JSON.parse(readFileSync('tsconfig.json', 'utf8')) as {
      compilerOptions: { rootDir: string; outDir: string };
    };
    expect([tsconfig.compilerOptions.rootDir, tsconfig.compilerOptions.outDir]).toEqual(['src', 'dist']);
    expect(existsSync(CLI)).toBe(true);
    expect(scripts().test).toBe('node scripts/test.mjs');
    expect(readFileSync('scripts/test.mjs', 'utf8')).toMatch(/'vitest',\s*'run'|vitest run/);
    expect(scripts().typecheck).toBe('tsc -p tsconfig.check.json');
    const check = JSON.parse(readFileSync('tsconfig.check.json', 'utf8')) as {
      compilerOptions: { noEmit: boolean };
    };
    expect(check.compilerOptions.noEmit).toBe(true);
  });

  it('[001-start-4 001-start-5 001-connect-6] `npm run dev:http` serves bookings-mcp over Streamable HTTP on port 3270: the server it runs answers at http://127.0.0.1:3270/mcp with the seven tools', async () => {
    const script = scripts()['dev:http']!;
    expect(script).toBe('node scripts/dev.mjs --profile bookings --port 3270');
    // scripts/dev.mjs rebuilds on change and runs `holdfast serve` with the script's arguments.
    expect(readFileSync('scripts/dev.mjs', 'utf8')).toContain(
      "'dist/bin/holdfast.js', 'serve', ...serveArgs",
    );
    const serveArgs = script.split('scripts/dev.mjs ')[1]!.split(' ');
    const dev = await spawnServer(serveArgs);
    const client = await connectHttp(dev.url, 'modern');
    try {
      expect(dev.url).toBe('http://127.0.0.1:3270/mcp');
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(SEVEN);
    } finally {
      await client.close();
      await dev.stop();
    }
  });

  it('[001-start-6] `npm run test:watch` is vitest in watch mode', () => {
    expect(scripts()['test:watch']).toBe('vitest watch');
  });

  it('[001-connect-1 001-connect-2 001-start-8 001-features-10] the stdio configuration of a local host (docs/profiles.md) runs `node …/dist/bin/holdfast.js stdio --profile bookings`: the seven tools, the start-up banner on stderr, stdout protocol only', async () => {
    const profiles = readFileSync('docs/profiles.md', 'utf8');
    const section = profiles.slice(profiles.indexOf('## bookings (seed 001)'));
    const config = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(section)![1]!) as {
      mcpServers: { bookings: { command: string; args: string[] } };
    };
    const { command, args } = config.mcpServers.bookings;
    expect(command).toBe('node');
    expect(args[0]).toBe('/absolute/path/to/holdfast/dist/bin/holdfast.js');
    // The same arguments with this checkout's path and a database of the test's.
    const host = await stdioHost(command, [
      CLI,
      ...args.slice(1, -1),
      server.agent.email,
      '--db',
      server.dbPath,
    ]);
    try {
      expect((await host.client.listTools()).tools.map((t) => t.name)).toEqual(SEVEN);
      // The banner went to stderr; the client read nothing but protocol from stdout.
      expect(host.stderr()).toContain('"message":"holdfast serving on stdio"');
    } finally {
      await host.client.close();
    }
    // Over HTTP too the banner is on stderr.
    expect(server.logs.join('')).toMatch(
      /"url":"http:\/\/127\.0\.0\.1:\d+\/mcp".*"message":"holdfast listening"/,
    );
  });

  it('[001-features-10] two transports from one server: stdio for local hosts and stateless Streamable HTTP offer the same seven tools on the same store', async () => {
    const host = await stdioHost(process.execPath, [
      CLI,
      'stdio',
      '--profile',
      'bookings',
      '--db',
      server.dbPath,
      '--as',
      server.agent.email,
    ]);
    try {
      const overStdio = (await host.client.listTools()).tools.map((t) => t.name);
      expect(overStdio).toEqual((await agent.listTools()).tools.map((t) => t.name));
      const read = async (client: Client) =>
        (
          (await client.callTool({ name: 'list_customers', arguments: {} })) as {
            content: { text: string }[];
          }
        ).content[0]!.text;
      expect(await read(host.client)).toBe(await read(agent));
    } finally {
      await host.client.close();
    }
  });

  it('[001-testing-1 001-testing-2 001-features-12] tested end to end: the contract tests spawn the built server (a process of its own) and drive it with the official MCP client, mocking nothing', () => {
    expect(server.process.pid).not.toBe(process.pid);
    expect(agent.getServerVersion()?.name).toBe('holdfast');
    const profileTests = readFileSync('test/contracts/profile-001-bookings.test.ts', 'utf8');
    expect(profileTests).toContain('connectStdio(');
    expect(profileTests).toContain('spawnServer(');
    expect(profileTests).not.toMatch(/vi\.mock|vi\.spyOn/);
    expect(readFileSync('test/support/mcp-clients.ts', 'utf8')).toContain(
      "from '@modelcontextprotocol/client'",
    );
    expect(readFileSync('test/support/spawn-server.ts', 'utf8')).toContain("'dist/bin/holdfast.js'");
  });
});

describe('bookings-mcp: production hardening', () => {
  it('[001-hardening-1] persistence: bookings live in the database — SQLite by default, PostgreSQL with --database', async () => {
    const { bookings } = JSON.parse(
      ((await agent.callTool({ name: 'list_bookings', arguments: {} })) as { content: { text: string }[] })
        .content[0]!.text,
    ) as { bookings: { id: string }[] };
    expect(bookings.length).toBeGreaterThanOrEqual(3);
    const db = new Database(server.dbPath, { readonly: true });
    try {
      expect(db.prepare('SELECT id FROM bookings WHERE id = ?').get(bookings[0]!.id)).toEqual({
        id: bookings[0]!.id,
      });
    } finally {
      db.close();
    }
    expect(await serveHelp()).toMatch(/--database URL +postgres:\/\//);
  });

  it('[001-hardening-5] auth and TLS: off loopback the server refuses to start without an https public URL behind a TLS-terminating proxy', async () => {
    const refused = await spawnCli([
      'serve',
      '--profile',
      'bookings',
      '--host',
      '0.0.0.0',
      '--port',
      '0',
      '--db',
      server.dbPath,
    ]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('--public-url https://');
    expect(refused.stderr).toContain('--trust-proxy');
  });

  it('[001-hardening-6] the audit goes to a database table, an append-only keyed chain that `holdfast audit verify` checks, not only to stderr', async () => {
    await agent.callTool({ name: 'list_customers', arguments: {} });
    await untilSealed(server.dbPath);
    const db = new Database(server.dbPath, { readonly: true });
    try {
      const rows = db.prepare("SELECT count(*) AS n FROM audit_log WHERE tool = 'list_customers'").get() as {
        n: number;
      };
      expect(rows.n).toBeGreaterThan(0);
    } finally {
      db.close();
    }
    const verified = await runCli(['audit', 'verify', '--db', server.dbPath, '--json']);
    expect(verified.status, verified.stdout + verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true });
  });
});

describe('bookings-mcp: licence', () => {
  it('[001-license-1] the package declares the MIT licence, ships its text, and the README links it', () => {
    expect(packageJson().license).toBe('MIT');
    expect(readFileSync('LICENSE', 'utf8')).toMatch(/^MIT License\n/);
    expect(packageJson().files).toEqual(expect.arrayContaining(['LICENSE']));
    expect(readFileSync('README.md', 'utf8')).toContain('[MIT](LICENSE)');
  });
});
