import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../../support/fixtures.js';
import { connectHttp, ok } from '../../support/mcp-clients.js';
import type { RunningServer } from '../../support/spawn-server.js';
import { runCli, spawnServer, tempDbPath } from '../../support/spawn-server.js';
import { startReceiver } from './receiver.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

// A 3 s send timeout makes a claim lapse 9 s after a crash.
const SERVER_ARGS = ['--allow-private-webhooks', '--webhook-timeout', '3'];

describe('kill -9 during a webhook delivery', () => {
  it('loses no event; the resent one carries the same webhook-id', async () => {
    const db = tempDbPath();
    cleanups.push(() => db.cleanup());
    let secret = '';
    let server: RunningServer | null = null;
    let killed = false;
    // The first request is left hanging and the server killed while it waits for the answer.
    const receiver = await startReceiver(
      () => secret,
      () => (killed ? 200 : 'hang'),
    );
    cleanups.push(() => receiver.close());
    server = await spawnServer(SERVER_ARGS, { dbPath: db.path, writePolicy: 'direct' });
    cleanups.push(() => server?.stop());
    const added = await runCli([
      'webhooks',
      'add',
      receiver.url,
      '--events',
      'all',
      '--allow-private-webhooks',
      '--db',
      db.path,
      '--json',
    ]);
    expect(added.status, added.stderr).toBe(0);
    secret = (JSON.parse(added.stdout) as { secret: string }).secret;
    expect(secret).toMatch(/^whsec_/);

    const client = await connectHttp(`${server.url}`, 'modern');
    const room = await createOpenCalendar(client, 'Webhook room');
    const start = futureHour(3);
    const held = await ok<{ booking: { id: string } }>(client, 'hold_slot', {
      calendarIds: [room],
      start,
      end: futureHour(3, 1),
      idempotencyKey: randomUUID(),
    });
    const id = held.booking.id;
    await ok(client, 'confirm_booking', { bookingId: id, expectedVersion: 1, idempotencyKey: randomUUID() });
    await ok(client, 'cancel_booking', { bookingId: id, expectedVersion: 2, idempotencyKey: randomUUID() });
    await client.close();

    await receiver.until((all) => all.length >= 1);
    const first = receiver.received[0]!;
    killed = true;
    server.process.kill('SIGKILL');
    await new Promise((resolve) => server!.process.once('exit', resolve));

    server = await spawnServer(SERVER_ARGS, { dbPath: db.path, provision: false });
    await receiver.until((all) => new Set(all.map((r) => r.type)).size === 3, 30_000);
    await receiver.until((all) => all.filter((r) => r.id === first.id).length >= 2, 30_000);

    const outbox = new Database(db.path, { readonly: true });
    const events = outbox.prepare('SELECT id, type FROM webhook_events ORDER BY seq').all() as {
      id: string;
      type: string;
    }[];
    outbox.close();
    expect(events.map((e) => e.type)).toEqual(['booking.held', 'booking.confirmed', 'booking.cancelled']);
    // Every recorded event reached the receiver; the one cut off by the kill came again under its own id.
    const ids = new Set(receiver.received.map((r) => r.id));
    expect([...ids].sort()).toEqual(events.map((e) => e.id).sort());
    expect(receiver.received.filter((r) => r.id === first.id).map((r) => r.type)).toEqual([
      first.type,
      first.type,
    ]);
    expect(receiver.received.every((r) => r.signatureValid)).toBe(true);
    expect(
      receiver.received.every((r) => /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/.test(r.traceparent ?? '')),
    ).toBe(true);

    const listed = await runCli(['webhooks', 'deliveries', '--db', db.path, '--json']);
    expect(listed.status, listed.stderr).toBe(0);
    const deliveries = JSON.parse(listed.stdout) as { eventId: string; state: string }[];
    expect(deliveries.map((d) => d.eventId).sort()).toEqual(events.map((e) => e.id).sort());
    expect(listed.stdout).not.toContain(secret);
  }, 90_000);
});
