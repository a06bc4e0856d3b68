// mcp-remote (the root devDependency) through the scenario: the stdio proxy desktop hosts put in
// front of a remote server, with the v1 SDK client as the host on its stdio side. Over HTTP with
// the token as a --header, and through the OAuth flow: it prints the authorization URL (its
// attempt to open a browser runs `true`), headless Chromium plays the person, and the proxy
// gets the code on its loopback callback. Its HOME and config directory are the run's own.
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { launchBrowser, personAllows } from './browser.mjs';
import { driverMain } from './scenario.mjs';
import { adapter, stdioTransport } from './sdk-v1.mjs';

const PROXY = join(dirname(fileURLToPath(import.meta.url)), '../../node_modules/mcp-remote/dist/proxy.js');

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function connect(job) {
  const port = await freePort();
  const args = [PROXY, job.url, String(port), '--host', '127.0.0.1'];
  if (job.transport === 'http') args.push('--header', `Authorization: Bearer ${job.token}`);
  else if (job.transport !== 'oauth') throw new Error(`no ${job.transport} for mcp-remote`);
  const env = {
    PATH: process.env.PATH,
    HOME: job.home,
    MCP_REMOTE_CONFIG_DIR: join(job.home, `mcp-auth-${port}`),
    BROWSER: 'true',
  };
  const { transport, stderr } = stdioTransport(process.execPath, args, env);
  const client = new Client({ name: 'holdfast-interop-mcp-remote-host', version: '1.0.0' });
  const connected = client.connect(transport, { timeout: 90_000 });
  if (job.transport === 'oauth') {
    connected.catch(() => undefined);
    const authorizationUrl = await new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no authorization URL: ${stderr.join('').slice(-300)}`)),
        30_000,
      );
      const look = () => {
        const match = /Please authorize this client by visiting:\s+(\S+)\n/.exec(stderr.join(''));
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      };
      transport.stderr.on('data', look);
      look();
    });
    const browser = await launchBrowser();
    try {
      await personAllows(browser, authorizationUrl, job.person);
    } finally {
      await browser.close();
    }
  }
  await connected;
  return client;
}

driverMain((job) => adapter(() => connect(job)));
