import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { ok } from '../support/mcp-clients.js';
import { runCli } from '../support/spawn-server.js';
import type { Backend, BackendKind } from '../reliability/harness.js';
import { clientsFor, startBackend } from '../reliability/harness.js';

// Erasure that keeps the audit whole, through the spawned server and the real CLI on both engines:
// a customer's details are stored sealed with their own key; `holdfast customers erase EMAIL`
// destroys it, so their bookings (and the outbox's copies) answer "erased" while everyone else's
// stay readable; `audit verify` still passes; the e-mail address and name are nowhere in the
// database, before or after; and a tenant's retention erases a customer after their last booking
// ends (by the sweeper, under an injected clock).

const DAY = 86_400_000;

/** Every occurrence of `needle` in the database: the SQLite file and its WAL byte for byte, every PostgreSQL row as text. */
async function occurrences(backend: Backend, needle: string): Promise<number> {
  if (backend.kind === 'sqlite') {
    const path = backend.databaseArgs[1]!;
    return [path, `${path}-wal`]
      .filter((file) => existsSync(file))
      .map((file) => readFileSync(file).toString('latin1').split(needle).length - 1)
      .reduce((a, b) => a + b, 0);
  }
  const tables = await backend.sql<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
  );
  let hits = 0;
  for (const { table_name } of tables) {
    const rows = await backend.sql<{ t: string }>(`SELECT t::text AS t FROM "${table_name}" t`);
    hits += rows.filter((r) => r.t.includes(needle)).length;
  }
  return hits;
}

async function hold(agent: Client, calendar: string, day: number, customer: Record<string, string>) {
  const held = await ok<{ booking: { id: string; version: number } }>(agent, 'hold_slot', {
    calendarIds: [calendar],
    start: futureHour(day),
    end: futureHour(day, 1),
    customer,
    idempotencyKey: randomUUID(),
  });
  return held.booking;
}

const customerOf = async (agent: Client, id: string) =>
  (
    await ok<{ booking: { customer: Record<string, string> | null; customerErased?: boolean } }>(
      agent,
      'get_booking',
      { bookingId: id },
    )
  ).booking;

describe.each<BackendKind>(['sqlite', 'postgres'])('customer erasure (%s)', (kind) => {
  it('erases one customer everywhere by destroying their key; the audit still verifies; retention erases by the sweeper', async () => {
    const backend = await startBackend(kind, { instances: 1 });
    const db = backend.databaseArgs;
    const clockDir = mkdtempSync(join(tmpdir(), 'holdfast-erasure-'));
    const clock = join(clockDir, 'clock');
    writeFileSync(clock, '0');
    try {
      let [agent] = await clientsFor(backend, 1);
      const room = await createOpenCalendar(agent!, 'Jade Room');
      const ana = {
        name: 'Anastasia Lindqvist',
        email: 'anastasia.lindqvist@example.org',
        phone: '+46 70 111 2233',
      };
      const bob = { name: 'Bartholomew Oyelaran', email: 'bartholomew.oyelaran@example.org' };
      const cleo = { name: 'Cleopatra Nakashima', email: 'cleopatra.nakashima@example.org' };
      const anaFirst = await hold(agent!, room, 3, ana);
      const anaSecond = await hold(agent!, room, 4, { ...ana, email: 'Anastasia.Lindqvist@Example.org' });
      await ok(agent!, 'confirm_booking', {
        bookingId: anaFirst.id,
        expectedVersion: anaFirst.version,
        idempotencyKey: randomUUID(),
      });
      const bobs = await hold(agent!, room, 5, bob);
      const cleos = await hold(agent!, room, 30, cleo);

      // A release before sealing stored details in the clear: the next start seals them (the row
      // and its handle), and they read as before.
      const param = (n: number) => (kind === 'sqlite' ? '?' : `$${n}`);
      await backend.sql(
        `UPDATE bookings SET customer = ${param(1)}, customer_key = ${param(2)} WHERE id = ${param(3)}`,
        [JSON.stringify(cleo), `email:${cleo.email}`, cleos.id],
      );
      await backend.sql("DELETE FROM installation WHERE key = 'customers_sealed'");
      expect(await occurrences(backend, cleo.email)).toBeGreaterThan(0);
      await agent!.close();
      await backend.crashAndRestart(0);
      [agent] = await clientsFor(backend, 1);
      expect((await customerOf(agent!, cleos.id)).customer?.name).toBe(cleo.name);
      // No row holds them in the clear any more (pages the old rows left are reused in time: VACUUM).
      const plain = await backend.sql<{ n: number | string }>(
        `SELECT count(*) AS n FROM bookings WHERE customer LIKE ${param(1)} OR customer_key LIKE ${param(2)}`,
        ['%cleopatra%', '%cleopatra%'],
      );
      expect(Number(plain[0]!.n)).toBe(0);

      // Readable while kept, and never stored in the clear: not the address, not the name.
      expect((await customerOf(agent!, anaFirst.id)).customer?.name).toBe(ana.name);
      expect((await customerOf(agent!, anaSecond.id)).customer?.name).toBe(ana.name);
      for (const secret of [ana.email, ana.name, bob.email, 'Lindqvist'])
        expect(await occurrences(backend, secret), secret).toBe(0);

      const erased = await runCli(['customers', 'erase', ana.email, ...db]);
      expect(erased.status, erased.stderr).toBe(0);
      expect(erased.stdout).toContain('2 booking(s)');
      for (const id of [anaFirst.id, anaSecond.id]) {
        const after = await customerOf(agent!, id);
        expect(after.customer).toBeNull();
        expect(after.customerErased).toBe(true);
      }
      // Everyone else's details are untouched; the erased customer is no longer a customer.
      expect((await customerOf(agent!, bobs.id)).customer?.name).toBe(bob.name);
      const listed = await ok<{ customers: { contact: { name: string | null } }[] }>(
        agent!,
        'list_customers',
        { limit: 50 },
      );
      expect(listed.customers.map((c) => c.contact.name).sort()).toEqual([bob.name, cleo.name].sort());
      // The trail is whole and says an operator erased someone, without saying whom.
      const verified = await runCli(['audit', 'verify', ...db]);
      expect(verified.status, verified.stdout + verified.stderr).toBe(0);
      const [record] = await backend.sql<{ tool: string; preview: string }>(
        "SELECT tool, preview FROM audit_log WHERE tool = 'cli customers erase'",
      );
      expect(record?.preview).toBe('{"verb":"erase"}');
      expect(await occurrences(backend, ana.email)).toBe(0);
      expect(await occurrences(backend, 'Lindqvist')).toBe(0);
      // A second erasure finds nothing left; a malformed address is refused, naming the field.
      expect((await runCli(['customers', 'erase', ana.email, ...db])).stdout).toContain('nothing to erase');
      const bad = await runCli(['customers', 'erase', 'not-an-address', ...db]);
      expect(bad.status).not.toBe(0);
      expect(bad.stderr).toContain('email');

      // Retention: one day after a customer's last booking ends. Six days on, Bob's (day 5) is past
      // it; Cleo's (day 30) is not.
      const set = await runCli(['tenants', 'set', 'local', '--customer-retention', '1', ...db]);
      expect(set.status, set.stderr).toBe(0);
      expect(set.stdout).toContain('erased 1 days after their last booking');
      writeFileSync(clock, String(7 * DAY));
      const swept = await runCli(['sweep', '--json', ...db], {
        env: { ...process.env, HOLDFAST_DEV_CLOCK: clock },
      });
      expect(swept.status, swept.stderr).toBe(0);
      expect((JSON.parse(swept.stdout) as { customersErased: number }).customersErased).toBe(1);
      expect((await customerOf(agent!, bobs.id)).customerErased).toBe(true);
      expect((await customerOf(agent!, cleos.id)).customer?.name).toBe(cleo.name);
      expect((await runCli(['audit', 'verify', ...db])).status).toBe(0);
    } finally {
      rmSync(clockDir, { recursive: true, force: true });
      await backend.stop();
    }
  }, 120_000);
});
