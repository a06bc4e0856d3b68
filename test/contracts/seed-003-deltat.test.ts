import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalIssuer } from '../support/local-issuer.js';
import { connectHttp } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runProcess, spawnServer } from '../support/spawn-server.js';

// Seed 003, deltat's hold-and-commit tools (docs/contracts/seeds/003_b2f3d778f73207b1.txt): what
// the seed asks of a hosted deltat and of the package, against `holdfast serve --profile deltat`.
// Everything the stdio server and its tools do is in profile-003-deltat.test.ts. Each `it` names
// the inventory rows it proves (docs/contracts/003-deltat.md).

const ROOT = process.cwd();
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, any>;

let idp: LocalIssuer;
/** deltat's tools over Streamable HTTP; also accepts an outside issuer's access tokens. */
let server: RunningServer;

beforeAll(async () => {
  idp = await LocalIssuer.start();
  server = await spawnServer([
    '--no-seed',
    '--profile',
    'deltat',
    '--allow-private-upstreams',
    '--auth-issuer',
    idp.issuer,
  ]);
});

afterAll(async () => {
  await Promise.all([server?.stop(), idp?.stop()]);
});

describe('## @open-deltat/mcp (the opening)', () => {
  it('[003-intro-2] started with npx: the package’s one bin, holdfast, is a node script whose stdio command serves the deltat profile (`npx holdfast stdio --profile deltat`)', async () => {
    expect(pkg.bin).toEqual({ holdfast: 'dist/bin/holdfast.js' });
    expect(pkg.files).toContain('dist/bin/');
    expect(readFileSync(join(ROOT, pkg.bin.holdfast), 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    const help = await runProcess(process.execPath, [join(ROOT, pkg.bin.holdfast), 'stdio', '--help'], {
      timeoutMs: 20_000,
    });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: holdfast stdio /);
    expect(help.stdout).toMatch(/--profile P .*\bdeltat\b/);
  });
});

describe('## 关于身份验证，实话实说 (authentication, honestly)', () => {
  it('[003-auth-5 003-auth-6 003-auth-7 003-auth-8] a hosted call without credentials is 401 with protected-resource metadata (RFC 9728); hosts use authorization code + PKCE and Client ID Metadata Documents', async () => {
    const anonymous = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(anonymous.status).toBe(401);
    const challenge = anonymous.headers.get('www-authenticate')!;
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)![1]!;
    const resource = (await (await fetch(metadataUrl)).json()) as Record<string, any>;
    expect(resource.resource).toBe(server.url);
    const issuer = resource.authorization_servers[0] as string;
    const as = (await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      any
    >;
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    expect(as.grant_types_supported).toContain('authorization_code');
    expect(as.client_id_metadata_document_supported).toBe(true);
  });

  it('[003-auth-10] an outside issuer’s bearer JWT is checked offline against its cached JWKS: no network call per request', async () => {
    const token = () =>
      idp.sign({ aud: server.url, sub: 'idp-user', email: server.agent.email, scope: 'read draft write' });
    for (let i = 0; i < 3; i++) {
      const client = await connectHttp(server.url, 'modern', { token: await token() });
      const listed = await client.callTool({ name: 'list_bookings', arguments: {} });
      expect(listed.isError, JSON.stringify(listed.content)).toBeFalsy();
      expect(listed.structuredContent).toMatchObject({ bookings: [] });
      await client.close();
    }
    expect(idp.hits.jwks).toBe(1);
  });
});

describe('## 许可证 (license)', () => {
  it('[003-license-1] MIT, with the licence text in the repository and the package', () => {
    expect(pkg.license).toBe('MIT');
    expect(readFileSync('LICENSE', 'utf8')).toContain('Permission is hereby granted, free of charge');
    expect((pkg as { files?: string[] }).files).toContain('LICENSE');
  });
});
