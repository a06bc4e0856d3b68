import type { CommandDoc } from '../command-doc.js';
import { SERVER, HTTP_ONLY } from '../command-doc.js';

export const serveHelp: CommandDoc = {
  name: 'serve',
  usage: ['holdfast serve [options]'],
  summary: 'Serve MCP over Streamable HTTP at /mcp, with the console for people (the default command).',
  details: [
    'Creates the database on first start; with nobody to sign in yet, prints a one-time link to create the owner.',
    'Agents call /mcp with "Authorization: Bearer <token>": a personal access token (holdfast tokens create) or an',
    'OAuth access token from the embedded authorization server (remote hosts sign their person in at /oauth/authorize),',
    'or an access token of an identity provider named with --auth-issuer, for an existing person (matched by email).',
    'People sign in to the pages with a password or a passkey, or through the provider named with --login-issuer.',
  ],
  options: [
    'host',
    'port',
    'allowed-host',
    'trust-proxy',
    'oauth-token-ttl',
    'oauth-allow-private-metadata',
    'allow-private-feeds',
    'auth-issuer',
    'auth-jwks-url',
    'auth-audience',
    'auth-person-claim',
    'auth-tenant-claim',
    'auth-scope-claim',
    'auth-algorithms',
    'auth-write-policy',
    'auth-jwks-cooldown',
    'login-issuer',
    'login-client-id',
    'login-name',
    ...SERVER,
    ...HTTP_ONLY,
  ],
  examples: ['holdfast serve --port 3000 --db ./data/holdfast.db'],
};

export const stdioHelp: CommandDoc = {
  name: 'stdio',
  usage: ['holdfast stdio [options]'],
  summary: 'Serve MCP over stdin/stdout for a desktop host, and the console on a loopback port.',
  details: [
    'stdout carries protocol only; logs go to stderr. Creates the database on first start.',
    'approveUrl points at the page this process serves, so nothing else needs to run.',
  ],
  options: ['console-port', 'as', 'write-policy', 'allow-private-feeds', ...SERVER],
  examples: ['holdfast stdio --db /absolute/path/holdfast.db --as me@example.com'],
};
