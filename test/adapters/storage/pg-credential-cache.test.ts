import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgStore } from '../../../src/adapters/storage/postgres/pg-store.js';
import type { Credential } from '../../../src/ports/store/index.js';
import { freshSchema, withClient } from '../../support/postgres.js';

// A server on PostgreSQL remembers the credential behind each bearer token (one round trip less
// per call). Every row it depends on can change in another process — the CLI, another instance —
// so each case changes it over a separate connection, as they would.
const schema = freshSchema();
let server: PgStore;
let statements = 0;
const HASH = 'hash-of-the-agents-secret';

const lookup = (): Promise<Credential | null> => server.readOne((tx) => tx.tokens.credentialOf(HASH));

/** Looks up until `seen` holds; how many lookups still answered otherwise after `since`. */
async function lookupsUntil(seen: (c: Credential | null) => boolean, since: number) {
  let stale = 0;
  for (;;) {
    const credential = await lookup();
    if (seen(credential)) return { credential, stale, ms: performance.now() - since };
    stale++;
    if (performance.now() - since > 5_000) return { credential, stale, ms: Infinity };
    await new Promise((r) => setTimeout(r, 1));
  }
}

const elsewhere = (sql: string, values: unknown[] = []) =>
  withClient(schema.name, (client) => client.query(sql, values));

beforeAll(async () => {
  server = await PgStore.open(schema.url, { cacheCredentials: true });
  const query = server.pool.query.bind(server.pool) as (...args: unknown[]) => unknown;
  (server.pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    statements++;
    return query(...args);
  };
  await elsewhere(`INSERT INTO tenants (id, name, limits, created_at) VALUES ('t1', 'Acme', '{}', 0)`);
  await elsewhere(`INSERT INTO people (id, tenant_id, email, display_name, role, created_at)
    VALUES ('p1', 't1', 'ana@example.com', 'Ana', 'owner', 0)`);
  await elsewhere(
    `INSERT INTO access_tokens (id, tenant_id, person_id, name, scopes, write_policy, secret_hash,
    created_at, expires_at) VALUES ('tok1', 't1', 'p1', 'agent', 'bookings:read bookings:write', 'draft', $1, 0, $2)`,
    [HASH, Date.now() + 86_400_000],
  );
});

afterAll(async () => {
  await server.close();
  await schema.drop();
});

describe('the credential cache on PostgreSQL', () => {
  it('reads a credential once, then answers from memory; a last-used write keeps it', async () => {
    expect((await lookup())?.token.id).toBe('tok1');
    const before = statements;
    for (let i = 0; i < 20; i++) expect((await lookup())?.person.displayName).toBe('Ana');
    expect(statements - before).toBe(0);
    await server.writeOne((tx) => tx.tokens.touchToken('tok1', 1234));
    const touched = statements;
    expect((await lookup())?.token.lastUsedAt).toBe(1234);
    expect(statements - touched).toBe(0);
  });

  it('forgets at once when another process renames the person, changes the tenant or the token', async () => {
    await lookup();
    const changes: [string, (c: Credential | null) => boolean][] = [
      [
        `UPDATE people SET display_name = 'Ana B.' WHERE id = 'p1'`,
        (c) => c?.person.displayName === 'Ana B.',
      ],
      [`UPDATE tenants SET name = 'Acme Ltd' WHERE id = 't1'`, (c) => c?.tenant.name === 'Acme Ltd'],
      [
        `UPDATE access_tokens SET scopes = 'bookings:read' WHERE id = 'tok1'`,
        (c) => c?.token.scopes.length === 1,
      ],
    ];
    for (const [sql, seen] of changes) {
      await elsewhere(sql);
      const { ms } = await lookupsUntil(seen, performance.now());
      expect(ms).toBeLessThan(5_000);
    }
  });

  it('an agent racing a revocation or a disabled person: no lookup after the NOTIFY arrives answers the old row', async () => {
    await lookup();
    // The agent calls as fast as it can while the CLI revokes the token.
    let afterNotify = 0;
    let racing = true;
    let revokedSeenAt = Infinity;
    const agent = (async () => {
      while (racing) {
        const credential = await lookup();
        if (credential?.token.revokedAt != null) revokedSeenAt = Math.min(revokedSeenAt, performance.now());
        else if (performance.now() > revokedSeenAt) afterNotify++;
        // A remembered credential answers without I/O: let the NOTIFY in between calls, as a server's requests do.
        await new Promise((r) => setImmediate(r));
      }
    })();
    await elsewhere(`UPDATE access_tokens SET revoked_at = 99 WHERE id = 'tok1'`);
    await elsewhere(`UPDATE people SET disabled_at = 99 WHERE id = 'p1'`);
    await new Promise((r) => setTimeout(r, 300));
    racing = false;
    await agent;
    expect(revokedSeenAt).toBeLessThan(Infinity);
    expect(afterNotify).toBe(0);
    expect((await lookup())?.person.disabledAt).toBe(99);
  });

  it('while its listening connection is gone it remembers nothing, then listens again', async () => {
    await elsewhere(`UPDATE access_tokens SET revoked_at = NULL WHERE id = 'tok1'`);
    await elsewhere(`UPDATE people SET disabled_at = NULL WHERE id = 'p1'`);
    await lookupsUntil((c) => c?.token.revokedAt === null && c.person.disabledAt === null, performance.now());
    await elsewhere(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [
      `holdfast credentials ${schema.name}`,
    ]);
    await lookupsUntil(() => !server.credentialsListening, performance.now());
    const down = statements;
    await lookup();
    await lookup();
    expect(statements - down).toBe(2);
    // A revocation while nobody listens is read, not missed.
    await elsewhere(`UPDATE access_tokens SET revoked_at = 7 WHERE id = 'tok1'`);
    expect((await lookup())?.token.revokedAt).toBe(7);
    const { ms } = await lookupsUntil(() => server.credentialsListening, performance.now());
    expect(ms).toBeLessThan(5_000);
    await lookup();
    const again = statements;
    await lookup();
    expect(statements - again).toBe(0);
  });
});
