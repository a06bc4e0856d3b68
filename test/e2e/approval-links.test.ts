import { askForApproval } from '../support/approvals.js';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { AuditKey } from '../../src/adapters/audit/audit-key.js';
import { KeyedPageTokens } from '../../src/adapters/ids/keyed-page-tokens.js';
import type { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectHttp, connectStdio, ok } from '../support/mcp-clients.js';
import { decideOnPage, signIn } from '../support/person.js';
import { provisionOnce, runProcess, spawnServer, tempDbPath } from '../support/spawn-server.js';

interface Person {
  readonly email: string;
  readonly password: string;
}

/** A person signs in where the link points, reads the page and presses Approve. */
async function approveOnPage(approveUrl: string, person: Person): Promise<string> {
  const cookie = await signIn(new URL(approveUrl).origin, person.email, person.password);
  const { page, status, result } = await decideOnPage(approveUrl, cookie, 'approve');
  expect(status, result).toBe(200);
  return page;
}

/** Hold, ask to confirm, let a person approve at approveUrl, confirm with the approval. */
async function approvedConfirm(agent: Client, room: string, hour: number, person: Person) {
  const asked = await askForApproval(agent, room, futureHour(2, hour), futureHour(2, hour + 1));
  const { booking } = asked;
  const details = asked.details as { approvalId: string; approveUrl: string; cli: string };
  const page = await approveOnPage(details.approveUrl, person);
  const done = await call(agent, 'confirm_booking', {
    bookingId: booking.id,
    expectedVersion: 1,
    idempotencyKey: randomUUID(),
    approval: { approvalId: details.approvalId },
  });
  expect(done.ok, JSON.stringify(done.error)).toBe(true);
  return { details, page };
}

describe('approval links work wherever the server runs', () => {
  it('--host ::1: the log, approveUrl and the CLI hint name the real address and database', async () => {
    const server = await spawnServer(['--no-seed', '--host', '::1']);
    try {
      expect(server.url).toMatch(/^http:\/\/\[::1\]:\d+\/mcp$/);
      const agent = await connectHttp(server.url, 'modern');
      const room = await createOpenCalendar(agent, 'IPv6 room');
      const { details, page } = await approvedConfirm(agent, room, 1, server.agent);
      expect(details.approveUrl.startsWith(`http://[::1]:${server.port}/console/approvals/`)).toBe(true);
      expect(page).toContain('holdfast-test-modern 1.0.0'); // the declared client, shown to the person
      // The CLI hint, run as printed (from another directory), decides a second approval.
      const second = await call(agent, 'request_approval', {
        bookingId: (
          await ok(agent, 'hold_slot', {
            calendarIds: [room],
            start: futureHour(2, 5),
            end: futureHour(2, 6),
            idempotencyKey: randomUUID(),
          })
        ).booking.id,
        action: 'confirm_booking',
        idempotencyKey: randomUUID(),
      });
      const hint = (second.data as { cli: string }).cli;
      expect(hint).toContain(`--db "${server.dbPath}"`);
      const run = await runProcess(
        'sh',
        ['-c', hint.replace(/^holdfast /, `${process.execPath} ${process.cwd()}/dist/bin/holdfast.js `)],
        { cwd: '/' },
      );
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain('APPROVED');
      await agent.close();
    } finally {
      await server.stop();
    }
  });

  it('--public-url: links use it, and the page answers under that name', async () => {
    const server = await spawnServer(['--no-seed', '--public-url', 'https://holdfast.example:8443']);
    try {
      const agent = await connectHttp(server.url, 'modern');
      const room = await createOpenCalendar(agent, 'Public room');
      const { booking } = await ok(agent, 'hold_slot', {
        calendarIds: [room],
        start: futureHour(2),
        end: futureHour(2, 1),
        idempotencyKey: randomUUID(),
      });
      const asked = await ok(agent, 'request_approval', {
        bookingId: booking.id,
        action: 'confirm_booking',
        idempotencyKey: randomUUID(),
      });
      expect(asked.approveUrl).toBe(`https://holdfast.example:8443/console/approvals/${asked.approvalId}`);
      // Signed in on loopback (fetch cannot send another Host); the page then opens under that name.
      const cookie = await signIn(new URL(server.url).origin, server.agent.email, server.agent.password);
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: server.port,
            path: new URL(asked.approveUrl).pathname,
            headers: { host: 'holdfast.example:8443', cookie },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(200);
      await agent.close();
    } finally {
      await server.stop();
    }
  });

  it('a link handed out before the console (/approvals/<token>) leads to the console’s page of it; a spent or made-up one is unknown', async () => {
    const server = await spawnServer(['--no-seed']);
    try {
      const agent = await connectHttp(server.url, 'modern');
      const room = await createOpenCalendar(agent, 'Legacy room');
      const { details } = await askForApproval(agent, room, futureHour(2, 6), futureHour(2, 7));
      // The token the old links carried: derived from the approval id with the server's key.
      const key = new AuditKey(readFileSync(join(dirname(server.dbPath), 'audit.key'), 'utf8'));
      const token = new KeyedPageTokens(key.derive('approval-page')).tokenFor(details.approvalId);
      const legacy = new URL(`/approvals/${token}`, server.url);
      const anonymous = await fetch(legacy, { redirect: 'manual' });
      expect(anonymous.status).toBe(303);
      expect(anonymous.headers.get('location')).toBe(
        `/login?next=${encodeURIComponent(`/approvals/${token}`)}`,
      );
      const cookie = await signIn(legacy.origin, server.agent.email, server.agent.password);
      const followed = await fetch(legacy, { redirect: 'manual', headers: { cookie } });
      expect(followed.status).toBe(303);
      expect(followed.headers.get('location')).toBe(`/console/approvals/${details.approvalId}`);
      // A POST to it decides nothing: it is sent to the same page.
      const posted = await fetch(legacy, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, origin: legacy.origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'decision=approve',
      });
      expect(posted.headers.get('location')).toBe(`/console/approvals/${details.approvalId}`);
      expect((await call(agent, 'get_approval', { approvalId: details.approvalId })).error!.code).toBe(
        'APPROVAL_PENDING',
      );
      const madeUp = await fetch(new URL('/approvals/not-a-token', server.url), { headers: { cookie } });
      expect(madeUp.status).toBe(404);
      expect(await madeUp.text()).toContain('unknown or was already used');
      await decideOnPage(details.approveUrl, cookie, 'deny');
      expect((await fetch(legacy, { redirect: 'manual', headers: { cookie } })).status).toBe(404);
      await agent.close();
    } finally {
      await server.stop();
    }
  });

  it('stdio: the process serves its own approval page; approving there lets the agent confirm', async () => {
    const db = tempDbPath();
    const agent = await connectStdio(db.path, 'modern', ['--no-seed', '--write-policy', 'draft']);
    try {
      const room = await createOpenCalendar(agent, 'Desktop room');
      const { details } = await approvedConfirm(agent, room, 1, await provisionOnce(db.path));
      expect(details.approveUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/console\/approvals\//);
      expect(details.cli).toContain(`--db "${db.path}"`);
      // request_approval is retry-safe: the same key gives the same approval and the same link.
      const { booking } = await ok(agent, 'hold_slot', {
        calendarIds: [room],
        start: futureHour(2, 4),
        end: futureHour(2, 5),
        idempotencyKey: randomUUID(),
      });
      const key = randomUUID();
      const args = { bookingId: booking.id, action: 'confirm_booking', idempotencyKey: key };
      const first = await call(agent, 'request_approval', args);
      const again = await call(agent, 'request_approval', args);
      expect(again.meta.idempotentReplay).toBe(true);
      expect(again.data).toEqual(first.data);
    } finally {
      await agent.close();
      db.cleanup();
    }
  });
});
