import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/** What both demos do: print numbered steps, run the CLI, spawn the server, act as the person. */

// The demo prints whatever the tools answer; it reads their JSON loosely on purpose.
export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const cli = join(fileURLToPath(new URL('../bin/', import.meta.url)), 'holdfast.js');
let step = 0;

export function say(title: string, detail?: unknown): void {
  step += 1;
  process.stdout.write(`\n${String(step).padStart(2, ' ')}. ${title}\n`);
  if (detail !== undefined)
    process.stdout.write(`${JSON.stringify(detail, null, 2).replace(/^/gm, '    ')}\n`);
}

export async function callTool(client: Client, name: string, args: Json): Promise<Json> {
  const result = await client.callTool({ name, arguments: args });
  return result.structuredContent as Json;
}

export async function startServer(
  dbPath: string,
  extra: readonly string[] = [],
): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--db', dbPath, ...extra], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      log += chunk;
      const match = /"url":"(http:\/\/[^"]+)"/.exec(log);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}):\n${log}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

export function runCli(args: string[]): string {
  const run = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`holdfast ${args.join(' ')} failed: ${run.stderr}`);
  return run.stdout;
}

export const DEMO_PERSON = 'demo@example.com';
export const DEMO_PASSWORD = 'a demo password, long enough';

/**
 * What an operator does once per person and agent, with the CLI: add the person (the command
 * prints their one-time setup link) and give each agent a token of that person. Printed as run.
 */
export function provision(dbPath: string): { setupUrl: string; tokens: string[] } {
  const commands = [
    ['db', 'migrate'],
    ['users', 'add', DEMO_PERSON, '--role', 'owner', '--json'],
    ['tokens', 'create', DEMO_PERSON, '--name', 'demo agent', '--scopes', 'read,draft,write', '--json'],
    ['tokens', 'create', DEMO_PERSON, '--name', 'rival agent', '--scopes', 'read,draft,write', '--json'],
  ];
  const [, person, ...tokens] = commands.map((args) => runCli([...args, '--db', dbPath]));
  say(
    'A person and two agent tokens, made on the command line (each with --db; agents send "Authorization: Bearer <token>")',
    commands.map((args) => `holdfast ${args.map((a) => (a.includes(' ') ? `"${a}"` : a)).join(' ')}`),
  );
  return {
    setupUrl: (JSON.parse(person!) as { setupUrl: string }).setupUrl,
    tokens: tokens.map((out) => (JSON.parse(out) as { token: string }).token),
  };
}

/** Cookie pairs (`name=value`) a response sets, as a browser keeps them. */
const cookiesOf = (response: Response): string[] =>
  response.headers.getSetCookie().map((c) => c.split(';')[0]!);

/** A hidden form field of a page. */
const field = (page: string, name: string, after = ''): string | undefined =>
  new RegExp(`${after}[\\s\\S]*?name="${name}" value="([^"]+)"`).exec(page)?.[1];

/** What the person does in the browser with the setup link: choose a password. */
export async function setPassword(origin: string, setupUrl: string): Promise<void> {
  const link = new URL(new URL(setupUrl).pathname, origin);
  const answer = await fetch(link, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    body: new URLSearchParams({ password: DEMO_PASSWORD }),
  });
  if (!answer.ok) throw new Error(`setting the password failed: HTTP ${answer.status}`);
}

/**
 * What a person does in the browser: open the link, get sent to sign in, sign in, come back
 * to the page and press Approve (the form carries a CSRF token bound to their session).
 */
export async function approveOnPage(url: string): Promise<void> {
  const { origin } = new URL(url);
  const opened = await fetch(url, { redirect: 'manual' });
  const login = new URL(opened.headers.get('location') ?? '/login', origin);
  const form = await fetch(login);
  const posted = await fetch(new URL('/login', origin), {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin,
      cookie: cookiesOf(form).join('; '),
    },
    body: new URLSearchParams({
      csrf: field(await form.text(), 'csrf') ?? '',
      next: login.searchParams.get('next') ?? '/',
      email: DEMO_PERSON,
      password: DEMO_PASSWORD,
    }),
  });
  const cookie = cookiesOf(posted).find((c) => c.includes('holdfast_session='));
  if (posted.status !== 303 || !cookie) throw new Error(`sign-in failed: HTTP ${posted.status}`);
  const back = new URL(posted.headers.get('location') ?? url, origin);
  const csrf = field(
    await (await fetch(back, { headers: { cookie } })).text(),
    'csrf',
    'action="/console/approvals/',
  );
  if (!csrf) throw new Error('approval page has no form');
  const answer = await fetch(back, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin, cookie },
    body: new URLSearchParams({ csrf, decision: 'approve' }),
  });
  if (!answer.ok) throw new Error(`approval refused: HTTP ${answer.status}`);
}

export async function connect(
  url: string,
  name: string,
  token: string,
  timed?: typeof fetch,
): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      ...(timed ? { fetch: timed } : {}),
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}
