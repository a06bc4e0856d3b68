import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Json } from './demo-kit.js';
import {
  approveOnPage,
  callTool,
  connect,
  DEMO_PERSON,
  provision,
  runCli,
  say,
  setPassword,
  startServer,
} from './demo-kit.js';

/**
 * A scripted agent session against a freshly spawned Holdfast, printed so a person can follow it;
 * `--profile expert-booking` runs the seed-000 contract's flow instead (expert-demo.ts).
 */

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

const profile = process.argv.indexOf('--profile');
const chosen = profile >= 0 ? process.argv[profile + 1] : undefined;
(chosen === 'expert-booking' ? import('./expert-demo.js').then((demo) => demo.expertDemo()) : main()).catch(
  (error: unknown) => {
    process.stderr.write(`demo failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
