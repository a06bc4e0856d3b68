import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/** A scripted agent session against a freshly spawned Holdfast, printed so a person can follow it. */

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

async function connect(url: string, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'holdfast-demo-'));
  const server = await startServer(join(dir, 'demo.db'));
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

    const confirmed = (
      await callTool(rival, 'confirm_booking', {
        bookingId: second.id,
        expectedVersion: second.version,
        idempotencyKey: randomUUID(),
      })
    ).data.booking as Json;
    say('confirm_booking -> CONFIRMED', { status: confirmed.status, version: confirmed.version });

    const read = (await callTool(agent, 'get_booking', { bookingId: second.id })).data.booking as Json;
    say('get_booking', {
      reference: read.reference,
      status: read.status,
      start: read.start,
      local: read.local,
      price: read.price,
    });

    const cancelled = (
      await callTool(rival, 'cancel_booking', {
        bookingId: second.id,
        expectedVersion: read.version,
        idempotencyKey: randomUUID(),
      })
    ).data.booking as Json;
    say('cancel_booking -> CANCELLED', { status: cancelled.status, version: cancelled.version });

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
