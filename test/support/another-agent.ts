import type { Client } from '@modelcontextprotocol/client';
import { expect } from 'vitest';
import { connectHttp } from './mcp-clients.js';
import { runCli } from './spawn-server.js';

/**
 * The agent of another person of the same tenant (an approver, added and given a token through
 * the CLI): the attacker in tests of what one person's agent may do to another's bookings.
 */
export async function anotherPersonsAgent(
  url: string,
  databaseArgs: readonly string[],
  email = 'mallory@example.com',
): Promise<{ readonly client: Client; readonly token: string }> {
  expect((await runCli(['users', 'add', email, '--role', 'approver', ...databaseArgs])).status).toBe(0);
  const minted = await runCli([
    'tokens',
    'create',
    email,
    '--name',
    email.split('@')[0]!,
    '--json',
    ...databaseArgs,
  ]);
  const { token } = JSON.parse(minted.stdout) as { token: string };
  return { client: await connectHttp(url, 'modern', { token }), token };
}
