import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import type { Envelope } from '../support/mcp-clients.js';
import { call, connectHttp, ok } from '../support/mcp-clients.js';
import { signIn } from '../support/person.js';
import { runCli, spawnServer } from '../support/spawn-server.js';
import type { BackendKind } from '../reliability/harness.js';
import { clientsFor, startBackend } from '../reliability/harness.js';

// Standing approvals through the spawned server, the official client and the operator's CLI: a
// rule approves what fits it at once (recorded as approved by the rule), anything else still goes
// to a person; limits per day are counted at commit, so racing agents get exactly the cap.

const DAY = 86_400_000;
const dir = mkdtempSync(join(tmpdir(), 'holdfast-standing-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Held {
  id: string;
  version: number;
}

async function hold(client: Client, calendarId: string, daysAhead: number, hour: number): Promise<Held> {
  const { booking } = await ok<{ booking: Held }>(client, 'hold_slot', {
    calendarIds: [calendarId],
    start: futureHour(daysAhead, hour),
    end: futureHour(daysAhead, hour + 1),
    customer: { name: 'Ana Lima' },
    idempotencyKey: randomUUID(),
  });
  return booking;
}

const confirm = (client: Client, booking: Held): Promise<Envelope> =>
  call(client, 'confirm_booking', {
    bookingId: booking.id,
    expectedVersion: booking.version,
    idempotencyKey: randomUUID(),
  });

/** The approvals the operator sees, as JSON. */
async function approvals(db: string[], env?: NodeJS.ProcessEnv) {
  const listed = await runCli(['approvals', 'list', '--json', ...db], { env });
  expect(listed.status).toBe(0);
  return JSON.parse(listed.stdout) as { bookingId: string; status: string; decidedBy: string | null }[];
}

async function grant(
  db: string[],
  email: string,
  bounds: string[],
  env?: NodeJS.ProcessEnv,
): Promise<string> {
  const granted = await runCli(['standing-rules', 'grant', email, ...bounds, '--json', ...db], { env });
  expect(granted.stderr).toBe('');
  expect(granted.status).toBe(0);
  return (JSON.parse(granted.stdout) as { id: string }).id;
}

describe('standing approvals (SQLite, one instance)', () => {
  it('approve at once what fits, recorded as the rule of that person; everything else, revoked or expired, goes to a person', async () => {
    const clock = join(dir, 'clock');
    writeFileSync(clock, '0');
    const server = await spawnServer(['--no-seed', '--dev-clock', clock]);
    const db = ['--db', server.dbPath];
    const env = { ...process.env, HOLDFAST_DEV_CLOCK: clock };
    try {
      const agent = await connectHttp(server.url, 'modern');
      const physio = await createOpenCalendar(agent, 'Dr. Lena Vogel');
      const room = await createOpenCalendar(agent, 'Jade Room');
      const ruleId = await grant(
        db,
        server.agent.email,
        ['--calendars', 'Dr. Lena Vogel', '--bookings-per-day', '2', '--days', '30'],
        env,
      );

      // Fits: confirmed in one call, no person asked.
      const first = await hold(agent, physio, 3, 0);
      const done = await confirm(agent, first);
      expect(done.ok).toBe(true);
      expect((done.data as { booking: { status: string } }).booking.status).toBe('CONFIRMED');
      const byRule = (await approvals(db, env)).filter((a) => a.bookingId === first.id);
      expect(byRule).toHaveLength(1);
      expect(byRule[0]!.status).toBe('USED');
      expect(byRule[0]!.decidedBy).toMatch(new RegExp(`^standing rule ${ruleId} of `));
      // The person sees on the booking's page who approved it: their rule, by name.
      const cookie = await signIn(new URL(server.url).origin, server.agent.email, server.agent.password);
      const page = await (
        await fetch(new URL(`/console/bookings/${first.id}`, server.url), { headers: { cookie } })
      ).text();
      expect(page).toMatch(new RegExp(`Approved confirming it — standing rule ${ruleId} of `));

      // Another calendar: a person decides.
      const elsewhere = await confirm(agent, await hold(agent, room, 3, 1));
      expect(elsewhere.error?.code).toBe('APPROVAL_REQUIRED');

      // The second of two a day fits; the third goes to a person, with a pending approval.
      expect((await confirm(agent, await hold(agent, physio, 3, 2))).ok).toBe(true);
      const third = await confirm(agent, await hold(agent, physio, 3, 3));
      expect(third.error?.code).toBe('APPROVAL_REQUIRED');
      expect(third.error?.details.approvalId).toEqual(expect.any(String));

      // The next day (on the rule's clock) it approves again.
      writeFileSync(clock, String(DAY));
      expect((await confirm(agent, await hold(agent, physio, 4, 0))).ok).toBe(true);

      // Revoked: from that moment a person decides.
      const revoked = await runCli(['standing-rules', 'revoke', ruleId, ...db], { env });
      expect(revoked.status).toBe(0);
      expect((await confirm(agent, await hold(agent, physio, 4, 1))).error?.code).toBe('APPROVAL_REQUIRED');
      expect((await runCli(['standing-rules', 'revoke', ruleId, ...db], { env })).status).not.toBe(0);

      // Expired: a one-day rule two days on.
      await grant(db, server.agent.email, ['--days', '1'], env);
      writeFileSync(clock, String(3 * DAY));
      expect((await confirm(agent, await hold(agent, physio, 6, 0))).error?.code).toBe('APPROVAL_REQUIRED');

      const listed = await runCli(['standing-rules', 'list', ...db], { env });
      expect(listed.stdout).toMatch(new RegExp(`${ruleId}\\s+revoked`));
      expect(listed.stdout).toMatch(/expired\s+.*may confirm without asking: any calendar/);
      await agent.close();
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('an agent cannot create, widen or borrow a rule through any surface: 0 successes', async () => {
    const server = await spawnServer(['--no-seed']);
    const db = ['--db', server.dbPath];
    try {
      const agent = await connectHttp(server.url, 'modern');
      const physio = await createOpenCalendar(agent, 'Dr. Lena Vogel');
      let successes = 0;
      // No tool grants, widens or lists rules; the calendar rules tool takes none of their fields.
      const { tools } = await agent.listTools();
      successes += tools.filter((t) =>
        /standing|grant|auto.?approv/i.test(`${t.name} ${t.description}`),
      ).length;
      for (const name of ['grant_standing_rule', 'create_standing_rule', 'standing_rules']) {
        const made = await call(agent, name, { actions: ['confirm'], days: 90 }).catch(() => null);
        if (made?.ok) successes += 1;
      }
      const widened = await call(agent, 'set_booking_rules', {
        calendarId: physio,
        standingRule: { actions: ['confirm'] },
        idempotencyKey: randomUUID(),
      });
      if (widened.ok) successes += 1;
      expect(widened.error?.code).toBe('INVALID_ARGUMENTS');
      // Over HTTP with the agent's token: no console route takes a rule from a bearer token.
      for (const path of ['/console/standing-rules', '/console/rules/standing', '/api/standing-rules']) {
        const posted = await fetch(new URL(path, server.url), {
          method: 'POST',
          headers: { authorization: `Bearer ${server.agent.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ actions: ['confirm'], days: 90 }),
        });
        if (posted.ok) successes += 1;
      }
      // Another person's rule, and a rule for another connection of the same person, approve nothing.
      const other = await runCli(['users', 'add', 'ivan@example.com', '--role', 'approver', ...db]);
      expect(other.status).toBe(0);
      await grant(db, 'ivan@example.com', []);
      const tokens = JSON.parse((await runCli(['tokens', 'list', '--json', ...db])).stdout) as {
        id: string;
        person: string;
      }[];
      const spare = await runCli([
        'tokens',
        'create',
        server.agent.email,
        '--name',
        'spare',
        '--json',
        ...db,
      ]);
      const spareId = (JSON.parse(spare.stdout) as { id: string }).id;
      expect(tokens.length).toBeGreaterThan(0);
      await grant(db, server.agent.email, ['--connection', spareId]);
      for (let i = 0; i < 3; i += 1) {
        const attempt = await confirm(agent, await hold(agent, physio, 3, i));
        if (attempt.ok) successes += 1;
        expect(attempt.error?.code).toBe('APPROVAL_REQUIRED');
      }
      // A connection that is not the person's own cannot be named in a rule.
      const foreign = await runCli([
        'standing-rules',
        'grant',
        'ivan@example.com',
        '--connection',
        spareId,
        ...db,
      ]);
      expect(foreign.status).not.toBe(0);
      expect(foreign.stderr).toContain('connection');
      expect(successes).toBe(0);
      await agent.close();
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('refuses a rule an operator mistypes, naming the flag, and stores nothing', async () => {
    const server = await spawnServer(['--no-seed']);
    const db = ['--db', server.dbPath];
    try {
      // Each mistake with the rest of the rule right (a zone given), and the message that names it.
      const cases: [string[], RegExp][] = [
        [['--days', '91'], /expires: a whole number of days from 1 to 90/],
        [['--actions', 'book'], /actions: one or more of confirm, cancel, move/],
        [['--weekdays', 'fri-mon'], /--weekdays: mon…sun/],
        [['--hours', '17:00-09:00'], /hours: HH:MM-HH:MM, the start before the end/],
        [['--max-per-booking', '80'], /--max-per-booking: an amount and a currency/],
        [['--max-per-booking', 'lots'], /maxPerBooking\.amount/],
        [['--calendars', 'Nowhere'], /--calendars: no calendar "Nowhere"/],
        [['--customers', 'some'], /--customers: any or known/],
        [['--bookings-per-day', '0'], /bookingsPerDay: a whole number from 1 to 1000/],
      ];
      for (const [args, message] of cases) {
        const refused = await runCli([
          'standing-rules',
          'grant',
          server.agent.email,
          ...args,
          '--zone',
          'UTC',
          ...db,
        ]);
        expect(refused.status, args.join(' ')).not.toBe(0);
        expect(refused.stderr, args.join(' ')).toMatch(message);
      }
      const badZone = await runCli([
        'standing-rules',
        'grant',
        server.agent.email,
        '--zone',
        'Mars/Olympus',
        ...db,
      ]);
      expect(badZone.stderr).toMatch(/timeZone: an IANA time zone/);
      // Hours on any calendar, with no zone to read them in: it asks which.
      const unzoned = await runCli([
        'standing-rules',
        'grant',
        server.agent.email,
        '--hours',
        '09:00-17:00',
        ...db,
      ]);
      expect(unzoned.status).not.toBe(0);
      expect(unzoned.stderr).toMatch(/--zone: give the zone its hours, weekdays and days are read in/);
      expect((await runCli(['standing-rules', 'list', ...db])).stdout).toContain('No standing rules.');
    } finally {
      await server.stop();
    }
  }, 60_000);
});

describe.each<BackendKind>(['sqlite', 'postgres'])('standing approvals under racing agents (%s)', (kind) => {
  it('16 agents confirming at once under a daily cap of 3: exactly 3 by the rule, the rest to a person', async () => {
    const clock = join(dir, `race-${kind}`);
    // Noon UTC on the rule's clock, so the race never straddles its midnight.
    const now = Date.now();
    const noon = Math.floor(now / DAY) * DAY + DAY / 2;
    writeFileSync(clock, String(noon - now));
    const env = { HOLDFAST_DEV_CLOCK: clock };
    const backend = await startBackend(kind, {
      writePolicy: 'draft',
      env,
      serverArgs: ['--dev-clock', clock],
    });
    try {
      const clients = await clientsFor(backend, 16);
      const physio = await createOpenCalendar(clients[0]!, 'Dr. Lena Vogel');
      await grant(
        backend.databaseArgs,
        backend.servers[0]!.agent.email,
        ['--bookings-per-day', '3', '--zone', 'UTC'],
        {
          ...process.env,
          ...env,
        },
      );
      const held = await Promise.all(clients.map((client, i) => hold(client, physio, 3, i)));
      const answers = await Promise.all(clients.map((client, i) => confirm(client, held[i]!)));
      const confirmed = answers.filter(
        (a) => a.ok && (a.data as { booking: { status: string } }).booking.status === 'CONFIRMED',
      );
      expect(confirmed).toHaveLength(3);
      expect(answers.filter((a) => a.error?.code === 'APPROVAL_REQUIRED')).toHaveLength(13);
      const rows = await backend.sql<{ n: number | string }>(
        'SELECT count(*) AS n FROM approvals WHERE standing_rule_id IS NOT NULL',
      );
      expect(Number(rows[0]!.n)).toBe(3);
      await Promise.all(clients.map((c) => c.close()));
    } finally {
      await backend.stop();
    }
  }, 120_000);
});
