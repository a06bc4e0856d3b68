import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/** A scripted agent session against a freshly spawned Holdfast, printed so a person can follow it. */

// The demo prints whatever the tools answer; it reads their JSON loosely on purpose.
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const cli = join(fileURLToPath(new URL('../bin/', import.meta.url)), 'holdfast.js');
let step = 0;

function say(title: string, detail?: unknown): void {
  step += 1;
  process.stdout.write(`\n${String(step).padStart(2, ' ')}. ${title}\n`);
  if (detail !== undefined)
    process.stdout.write(`${JSON.stringify(detail, null, 2).replace(/^/gm, '    ')}\n`);
}

async function callTool(client: Client, name: string, args: Json): Promise<Json> {
  const result = await client.callTool({ name, arguments: args });
  return result.structuredContent as Json;
}

async function startServer(dbPath: string): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--db', dbPath], {
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

function runCli(args: string[]): string {
  const run = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`holdfast ${args.join(' ')} failed: ${run.stderr}`);
  return run.stdout;
}

const DEMO_PERSON = 'demo@example.com';
const DEMO_PASSWORD = 'a demo password, long enough';

/**
 * What an operator does once per person and agent, with the CLI: add the person (the command
 * prints their one-time setup link) and give each agent a token of that person. Printed as run.
 */
function provision(dbPath: string): { setupUrl: string; tokens: string[] } {
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
async function setPassword(origin: string, setupUrl: string): Promise<void> {
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
async function approveOnPage(url: string): Promise<void> {
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

async function connect(url: string, name: string, token: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'holdfast-demo-'));
  const dbPath = join(dir, 'demo.db');
  const { setupUrl, tokens } = provision(dbPath);
  const server = await startServer(dbPath);
  try {
    await setPassword(new URL(server.url).origin, setupUrl);
    say(`${DEMO_PERSON} opens the setup link the command printed and chooses a password`);
    const agent = await connect(server.url, 'demo-agent', tokens[0]!);
    const rival = await connect(server.url, 'demo-rival-agent', tokens[1]!);
    say(`Connected to ${server.url} (protocol era: ${agent.getProtocolEra()})`, agent.getServerVersion());

    const { tools } = await agent.listTools();
    say(
      'Discovered tools',
      tools.map((t) => t.name),
    );

    const calendars = (await callTool(agent, 'list_calendars', {})).data.calendars as Json[];
    say(
      'list_calendars',
      calendars.map((c) => ({ id: c.id, name: c.name, timeZone: c.timeZone, price: c.price })),
    );
    const person = calendars.find((c) => c.timeZone === 'Europe/Berlin')!;
    const room = calendars.find((c) => c.price !== null)!;

    const from = new Date(Date.now() + 24 * 3_600_000).toISOString();
    const to = new Date(Date.now() + 8 * 24 * 3_600_000).toISOString();
    const found = await callTool(agent, 'find_slots', {
      calendarIds: [person.id, room.id],
      from,
      to,
      durationMinutes: 60,
      limit: 3,
    });
    say(
      `find_slots: ${person.name} + ${room.name}, 60 minutes (${found.data.total} in total)`,
      found.data.slots,
    );
    const slot = found.data.slots[0] as Json;

    const hold = { calendarIds: [person.id, room.id], start: slot.start, end: slot.end };
    const first = await callTool(agent, 'hold_slot', {
      ...hold,
      customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
      label: 'Knee check-up',
      idempotencyKey: randomUUID(),
    });
    const held = first.data.booking as Json;
    say('hold_slot -> HELD', {
      id: held.id,
      reference: held.reference,
      status: held.status,
      version: held.version,
      expiresAt: held.expiresAt,
      price: held.price,
    });

    const clash = await callTool(rival, 'hold_slot', { ...hold, idempotencyKey: randomUUID() });
    say('A second agent tries the same time -> refused with alternatives', {
      code: clash.error.code,
      recovery: clash.error.recovery.action,
      alternatives: clash.error.details.alternatives,
    });

    const released = await callTool(agent, 'release_hold', {
      bookingId: held.id,
      expectedVersion: held.version,
      idempotencyKey: randomUUID(),
    });
    say('release_hold -> the time is free again', {
      status: released.data.booking.status,
      version: released.data.booking.version,
    });

    const second = (await callTool(rival, 'hold_slot', { ...hold, idempotencyKey: randomUUID() })).data
      .booking as Json;
    say('The second agent holds it now', { id: second.id, status: second.status, version: second.version });

    const confirmArgs = { bookingId: second.id, expectedVersion: second.version };
    const ask = await callTool(rival, 'confirm_booking', { ...confirmArgs, idempotencyKey: randomUUID() });
    const pending = ask.error.details as Json;
    say('confirm_booking without approval -> APPROVAL_REQUIRED; the agent shows this to its user', {
      code: ask.error.code,
      summary: pending.summary,
      approveUrl: pending.approveUrl,
      orOnTheCommandLine: pending.cli,
    });

    await approveOnPage(pending.approveUrl as string);
    say(`${DEMO_PERSON} opens the link, signs in, checks the booking and clicks Approve`, {
      approvalId: pending.approvalId,
    });

    const approval = { approvalId: pending.approvalId as string };
    const unpaid = await callTool(rival, 'confirm_booking', {
      ...confirmArgs,
      approval,
      idempotencyKey: randomUUID(),
    });
    say('confirm_booking with the approval -> PAYMENT_PENDING (the room costs money); the hold is kept', {
      code: unpaid.error.code,
      paymentUrl: unpaid.error.details.paymentUrl,
    });

    runCli(['payments', 'set', second.id, 'PAID', '--db', dbPath]);
    say(`The customer pays (simulated: holdfast payments set ${second.id} PAID)`);

    const confirmed = (
      await callTool(rival, 'confirm_booking', { ...confirmArgs, approval, idempotencyKey: randomUUID() })
    ).data.booking as Json;
    say('confirm_booking again -> CONFIRMED', {
      status: confirmed.status,
      version: confirmed.version,
      payment: confirmed.payment,
    });

    const read = (await callTool(agent, 'get_booking', { bookingId: second.id })).data.booking as Json;
    say('get_booking', {
      reference: read.reference,
      status: read.status,
      start: read.start,
      local: read.local,
      price: read.price,
    });

    const cancelArgs = { bookingId: second.id, expectedVersion: read.version };
    const askCancel = await callTool(rival, 'cancel_booking', {
      ...cancelArgs,
      idempotencyKey: randomUUID(),
    });
    const cancelApproval = askCancel.error.details.approvalId as string;
    say('cancel_booking also needs a person -> APPROVAL_REQUIRED', {
      code: askCancel.error.code,
      approvalId: cancelApproval,
    });
    runCli(['approvals', 'approve', cancelApproval, '--db', dbPath]);
    say(
      `The operator (whoever holds the database) approves on the command line: holdfast approvals approve ${cancelApproval}`,
    );
    const cancelled = (
      await callTool(rival, 'cancel_booking', {
        ...cancelArgs,
        approval: { approvalId: cancelApproval },
        idempotencyKey: randomUUID(),
      })
    ).data.booking as Json;
    say('cancel_booking -> CANCELLED', { status: cancelled.status, version: cancelled.version });

    const verify = runCli(['audit', 'verify', '--db', dbPath]);
    say(`Every call left an audit record: ${verify.trim()}`);

    await agent.close();
    await rival.close();
    process.stdout.write('\nDemo complete.\n');
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
