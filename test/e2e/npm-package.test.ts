import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installPackedPackage, type PackedPackage } from '../support/packed-package.js';
import { holdThenAskToConfirm } from '../support/fixtures.js';

const run = promisify(execFile);

// What `npx holdfast` runs after `npm install holdfast`: the tarball, installed by npm into an
// empty application, run through npx from there — nothing from this checkout but npm's cache.
let pkg: PackedPackage;
beforeAll(async () => {
  pkg = await installPackedPackage();
}, 120_000);
afterAll(() => rmSync(pkg.dir, { recursive: true, force: true }));

describe('the npm package', () => {
  it('carries only what runs: the built bundle, its types, the page assets, README and LICENSE', () => {
    const { size, unpackedSize, files } = pkg.packed;
    console.log(
      `npm pack: ${(size / 1e6).toFixed(2)} MB packed, ${(unpackedSize / 1e6).toFixed(2)} MB unpacked, ${files.length} files`,
    );
    const tops = new Set(
      files.map((path) =>
        path.startsWith('dist/') ? path.split('/').slice(0, 2).join('/') : path.split('/')[0],
      ),
    );
    expect([...tops].sort()).toEqual([
      'LICENSE',
      'README.md',
      'assets',
      'dist/bin',
      'dist/types',
      'package.json',
      'types',
    ]);
    expect(
      files.filter((path) => path.endsWith('.map') || path.endsWith('.tgz') || path.endsWith('.tsbuildinfo')),
    ).toEqual([]);
    // The budget: a bundle of ~4.4 MB of JavaScript compresses to about 1 MB.
    expect(size).toBeLessThan(1.5e6);
    expect(files.length).toBeLessThan(250);
    // Dependencies only: nothing of the suite, the linters or the bundler came with it.
    for (const dev of ['vitest', 'typescript', 'eslint', 'rolldown', 'playwright-core'])
      expect(existsSync(join(pkg.app, 'node_modules', dev)), dev).toBe(false);
    const manifest = JSON.parse(readFileSync(join(pkg.app, 'node_modules/holdfast/package.json'), 'utf8'));
    expect(manifest).toMatchObject({
      bin: { holdfast: 'dist/bin/holdfast.js' },
      mcpName: expect.stringMatching(/^io\.github\.[\w-]+\/holdfast$/),
      engines: { node: expect.stringContaining('^22') },
      scripts: { prepack: 'npm run build' },
    });
  });

  it('`npx holdfast --help` and `--version` answer from the installed package', async () => {
    const help = await run('npx', ['--no-install', 'holdfast', '--help'], { cwd: pkg.app });
    expect(help.stdout).toMatch(/^Usage: holdfast <command>/);
    expect(help.stdout).toContain('stdio');
    const version = await run('npx', ['--no-install', 'holdfast', '--version'], { cwd: pkg.app });
    const { version: packed } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(version.stdout.trim()).toBe(`holdfast ${packed} (Node.js ${process.version})`);
  }, 30_000);

  it('`npx holdfast stdio` serves the official client: tools, find_slots, hold_slot, confirm → approval link', async () => {
    const client = new Client({ name: 'npm-package-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: 'npx',
        args: [
          '--no-install',
          'holdfast',
          'stdio',
          '--db',
          join(pkg.dir, 'stdio.db'),
          '--as',
          'owner@example.com',
        ],
        cwd: pkg.app,
        stderr: 'pipe',
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['find_slots', 'hold_slot', 'confirm_booking']),
      );
      const refused = await holdThenAskToConfirm(client);
      expect(refused.error?.code).toBe('APPROVAL_REQUIRED');
      expect(String(refused.error?.details.approveUrl)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('`npx holdfast serve` listens and answers MCP over HTTP', async () => {
    const child = spawn(
      'npx',
      ['--no-install', 'holdfast', 'serve', '--port', '0', '--db', join(pkg.dir, 'serve.db')],
      {
        cwd: pkg.app,
        stdio: ['ignore', 'ignore', 'pipe'],
        detached: true, // its own process group: npx and the server it started stop together
      },
    );
    try {
      let logs = '';
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no start:\n${logs}`)), 20_000);
        child.stderr.on('data', (chunk: Buffer) => {
          logs += chunk;
          const match = /"url":"(http:\/\/[^"]+)"/.exec(logs);
          if (match) resolve((clearTimeout(timer), match[1]!));
        });
      });
      // No token: the MCP endpoint refuses and points at its protected-resource metadata.
      const refused = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain('resource_metadata=');
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
    }
  }, 30_000);
});
