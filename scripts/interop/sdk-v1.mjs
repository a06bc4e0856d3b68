// The v1 TypeScript SDK (@modelcontextprotocol/sdk, pinned in the root package.json) through
// the scenario: over HTTP with a token, over stdio, or through the OAuth flow with headless
// Chromium as the person. Also the host side of mcp-remote (scripts/interop/mcp-remote.mjs).
import { createServer } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { launchBrowser, personAllows } from './browser.mjs';
import { driverMain } from './scenario.mjs';

/** The scenario's adapter over a v1 Client; `connect` makes the connection. */
export function adapter(connect) {
  let client;
  return {
    async connect() {
      client = await connect();
    },
    async listToolNames() {
      return (await client.listTools()).tools.map((t) => t.name);
    },
    async listResources() {
      return (await client.listResources()).resources;
    },
    async listPrompts() {
      return (await client.listPrompts()).prompts;
    },
    async callTool(name, args) {
      const result = await client.callTool({ name, arguments: args });
      const text = (result.content ?? []).map((c) => c.text ?? '').join('\n');
      return { envelope: result.structuredContent, text };
    },
    async close() {
      await client?.close();
    },
  };
}

const newClient = () => new Client({ name: 'holdfast-interop-sdk-v1', version: '1.0.0' });

export function stdioTransport(command, args, env) {
  const transport = new StdioClientTransport({ command, args, env, stderr: 'pipe' });
  const stderr = [];
  transport.stderr?.on('data', (chunk) => stderr.push(chunk.toString('utf8')));
  return { transport, stderr };
}

/** An OAuth client provider kept in memory: the host a person connects through a browser. */
function memoryProvider(redirectUrl) {
  let clientInformation;
  let tokens;
  let verifier;
  let authorizationUrl;
  return {
    get redirectUrl() {
      return redirectUrl;
    },
    get clientMetadata() {
      return {
        client_name: 'Holdfast interop (MCP TypeScript SDK v1)',
        redirect_uris: [redirectUrl],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      };
    },
    clientInformation: () => clientInformation,
    saveClientInformation: (info) => (clientInformation = info),
    tokens: () => tokens,
    saveTokens: (t) => (tokens = t),
    redirectToAuthorization: (url) => (authorizationUrl = url),
    saveCodeVerifier: (v) => (verifier = v),
    codeVerifier: () => verifier,
    get authorizationUrl() {
      return authorizationUrl;
    },
  };
}

/** A loopback redirect URI that answers the browser, so its landing page loads. */
async function callbackListener() {
  const server = createServer((_request, response) => response.end('Authorization received.'));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/callback`, close: () => server.close() };
}

async function connectOAuth(job) {
  const callback = await callbackListener();
  const provider = memoryProvider(callback.url);
  const url = new URL(job.url);
  try {
    const client = newClient();
    try {
      await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
      return client;
    } catch (error) {
      if (!(error instanceof UnauthorizedError) || !provider.authorizationUrl) throw error;
    }
    const browser = await launchBrowser();
    let landed;
    try {
      landed = await personAllows(browser, provider.authorizationUrl, job.person);
    } finally {
      await browser.close();
    }
    const code = landed.searchParams.get('code');
    if (!code) throw new Error(`no code on ${landed.href}`);
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await transport.finishAuth(code);
    await client.connect(transport);
    return client;
  } finally {
    callback.close();
  }
}

export function connectV1(job) {
  if (job.transport === 'http') {
    return async () => {
      const client = newClient();
      await client.connect(
        new StreamableHTTPClientTransport(new URL(job.url), {
          requestInit: { headers: { Authorization: `Bearer ${job.token}` } },
        }),
      );
      return client;
    };
  }
  if (job.transport === 'stdio') {
    return async () => {
      const client = newClient();
      const { transport } = stdioTransport(job.stdio.command, job.stdio.args);
      await client.connect(transport);
      return client;
    };
  }
  if (job.transport === 'oauth') return () => connectOAuth(job);
  throw new Error(`no ${job.transport} for the v1 SDK`);
}

if (import.meta.url === `file://${process.argv[1]}`) await driverMain((job) => adapter(connectV1(job)));
