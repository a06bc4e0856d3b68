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

const cli = join(fileURLToPath(new URL('.', import.meta.url)), 'cli.js');
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

/** What a person does in the browser: open the page, press Approve (the form carries its CSRF token). */
async function approveOnPage(url: string): Promise<void> {
  const page = await (await fetch(url)).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
  if (!csrf) throw new Error('approval page has no form');
  const answer = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, decision: 'approve' }),
  });
  if (!answer.ok) throw new Error(`approval refused: HTTP ${answer.status}`);
}

async function connect(url: string, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'holdfast-demo-'));
  const dbPath = join(dir, 'demo.db');
  const server = await startServer(dbPath);
  try {
    const agent = await connect(server.url, 'demo-agent');
    const rival = await connect(server.url, 'demo-rival-agent');
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
    say('A person opens the link, checks the booking and clicks Approve', { approvalId: pending.approvalId });

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
    say(`The operator approves on the command line: holdfast approvals approve ${cancelApproval}`);
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
