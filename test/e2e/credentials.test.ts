import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/domain/identity/identity.js';
import type { Scope } from '../../src/domain/identity/identity.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectHttp } from '../support/mcp-clients.js';
import { signIn } from '../support/person.js';
import { addAgent, identityDeps } from '../support/provision.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer, tempDbPath } from '../support/spawn-server.js';

// Agents only get in with a live bearer token of a live person, and only as far as its scopes.

let server: RunningServer;
let room: string;

beforeAll(async () => {
  server = await spawnServer(['--no-seed']);
  const owner = await connectHttp(server.url, 'modern');
  room = await createOpenCalendar(owner, 'Room 1');
  await owner.close();
});
afterAll(() => server?.stop());

/** A fetch that remembers every HTTP answer, so a refusal is seen even when the client throws. */
function recording() {
  const seen: { status: number; challenge: string | null }[] = [];
  const wrapped: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    seen.push({ status: response.status, challenge: response.headers.get('www-authenticate') });
    return response;
  };
  return { seen, fetch: wrapped };
}

/** Connects with `authorization` (raw header value, or none) and lists the calendars. */
async function tryList(authorization: string | null, cookie?: string) {
  const { seen, fetch: recorded } = recording();
  const withHeaders: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.delete('authorization');
    if (authorization !== null) headers.set('authorization', authorization);
    if (cookie) headers.set('cookie', cookie);
    return recorded(input, { ...init, headers });
  };
  const outcome = await connectHttp(server.url, 'modern', { token: null, fetch: withHeaders })
    .then(async (client) => {
      const listed = await call(client, 'list_calendars', {});
      await client.close();
      return listed.ok ? 'accepted' : 'refused in the envelope';
    })
    .catch(() => 'refused');
  return { outcome, seen };
}

describe('the credential matrix on /mcp', () => {
  it('none, malformed, unknown, expired, revoked, a disabled person, another deployment’s tenant, a person’s session cookie: 401, accepted 0', async () => {
    // A tenant of another Holdfast (its own database): its token, valid there, means nothing here.
    const elsewhere = tempDbPath();
    const foreignDeployment = await identityDeps(elsewhere.path);
    const foreign = await addAgent(foreignDeployment.deps, {
      email: 'far@elsewhere.example',
      tenant: 'elsewhere',
    });
    await foreignDeployment.close();
    elsewhere.cleanup();
    const { deps, close } = await identityDeps(server.dbPath);
    const expired = await addAgent(deps, { email: 'exp@local.example', tokenTtlMs: 1 });
    const revoked = await addAgent(deps, { email: 'rev@local.example' });
    const disabled = await addAgent(deps, { email: 'dis@local.example' });
    await close();
    expect((await runCli(['tokens', 'revoke', revoked.tokenId, '--db', server.dbPath])).status).toBe(0);
    expect((await runCli(['users', 'disable', disabled.email, '--db', server.dbPath])).status).toBe(0);
    const cookie = await signIn(new URL(server.url).origin, server.agent.email, server.agent.password);

    const cases: [string, string | null, string?][] = [
      ['no Authorization header', null],
      ['not a bearer scheme', `Basic ${Buffer.from('a:b').toString('base64')}`],
      ['bearer without a token', 'Bearer '],
      ['malformed token', 'Bearer not-a-token'],
      ['unknown token', `Bearer hf_pat_${randomBytes(32).toString('base64url')}`],
      ['expired token', `Bearer ${expired.token}`],
      ['revoked token', `Bearer ${revoked.token}`],
      ['token of a disabled person', `Bearer ${disabled.token}`],
      ['token of another deployment’s tenant', `Bearer ${foreign.token}`],
      ['a signed-in person’s session cookie, no token', null, cookie],
    ];
    const results = [];
    for (const [name, authorization, withCookie] of cases) {
      const { outcome, seen } = await tryList(authorization, withCookie);
      results.push({ name, outcome, statuses: seen.map((s) => s.status), challenge: seen[0]?.challenge });
    }
    const accepted = results.filter((r) => r.outcome !== 'refused' || r.statuses.includes(200));
    expect(accepted, JSON.stringify(accepted)).toEqual([]);
    for (const r of results) {
      expect(r.statuses, r.name).toEqual([401]);
      expect(r.challenge, r.name).toMatch(/^Bearer /);
    }
    // The control: the owner's own token gets in.
    expect((await tryList(`Bearer ${server.agent.token}`)).outcome).toBe('accepted');
  });

  it('a token without the scope a tool needs: 403 insufficient_scope naming every scope needed; accepted 0 (read comes with every token)', async () => {
    const { deps, close } = await identityDeps(server.dbPath);
    const needs: Record<Scope, [string, Record<string, unknown>]> = {
      read: ['list_bookings', {}],
      draft: [
        'hold_slot',
        { calendarIds: [room], start: futureHour(2), end: futureHour(2, 1), idempotencyKey: randomUUID() },
      ],
      write: ['confirm_booking', { bookingId: 'bk_x', expectedVersion: 1, idempotencyKey: randomUUID() }],
      sensitive: [
        'create_calendar',
        {
          name: 'X',
          timeZone: 'UTC',
          availability: { weekly: {}, overrides: [] },
          idempotencyKey: randomUUID(),
        },
      ],
    };
    let accepted = 0;
    // Every grant includes read: a token made without it reads all the same.
    const noRead = await addAgent(deps, { email: 'no-read@local.example', scopes: ['draft', 'write'] });
    const reader = await connectHttp(server.url, 'modern', { token: noRead.token });
    expect((await call(reader, 'list_calendars', {})).ok).toBe(true);
    await reader.close();
    for (const scope of SCOPES.filter((s) => s !== 'read')) {
      const agent = await addAgent(deps, {
        email: `no-${scope}@local.example`,
        scopes: SCOPES.filter((s) => s !== scope),
      });
      const { seen, fetch: recorded } = recording();
      const client = await connectHttp(server.url, 'modern', { token: agent.token, fetch: recorded });
      const [tool, args] = needs[scope];
      const answer = await call(client, tool, args).catch(() => null);
      if (answer?.ok) accepted++;
      const refusal = seen.at(-1)!;
      expect(refusal.status, scope).toBe(403);
      expect(refusal.challenge, scope).toContain('error="insufficient_scope"');
      // Every scope the call needs: the token's own and the missing one, so stepping up loses none.
      expect(refusal.challenge, scope).toContain(`scope="${SCOPES.join(' ')}"`);
      expect(refusal.challenge, scope).toContain(`${scope} is needed`);
      await client.close();
    }
    await close();
    expect(accepted).toBe(0);
  });

  it('a token never reaches further than its person’s role', async () => {
    const { deps, close } = await identityDeps(server.dbPath);
    const viewer = await addAgent(deps, { email: 'vi@local.example', role: 'viewer' });
    await close();
    for (const scopes of ['read,sensitive', 'read,draft', 'write']) {
      const made = await runCli([
        'tokens',
        'create',
        viewer.email,
        '--scopes',
        scopes,
        '--db',
        server.dbPath,
      ]);
      expect(made.status, scopes).toBe(1);
      expect(made.stderr).toContain('a viewer may give their agents read');
    }
    const client = await connectHttp(server.url, 'modern', { token: viewer.token });
    const { seen, fetch: recorded } = recording();
    const probe = await connectHttp(server.url, 'modern', { token: viewer.token, fetch: recorded });
    const refused = await call(probe, 'set_availability', {
      calendarId: room,
      weekly: {},
      overrides: [],
      idempotencyKey: randomUUID(),
    }).catch(() => null);
    expect(refused?.ok ?? false).toBe(false);
    expect(seen.at(-1)!.status).toBe(403);
    expect((await call(client, 'list_calendars', { limit: 5 })).ok).toBe(true);
    await Promise.all([client.close(), probe.close()]);
  });
});
