import { afterEach, describe, expect, it } from 'vitest';
import { addPerson, disablePerson, resetPassword } from '../../../src/app/identity/people.js';
import { authenticateToken, createToken } from '../../../src/app/identity/tokens.js';
import type { OAuthConnection } from '../../../src/domain/identity/oauth.js';
import { appHarnessOn, operator } from '../../support/app-harness.js';

// A password reset is what one does when someone else may know the password: whatever they
// could have made with it — sessions, agent tokens, OAuth connections — ends with it, in one
// transaction, unless the operator keeps them. Another person's are untouched.

const T0 = Date.UTC(2030, 0, 7, 8);

describe.each(['sqlite', 'postgres'] as const)('a password reset on %s', (engine) => {
  let h: Awaited<ReturnType<typeof appHarnessOn>>;
  afterEach(() => h?.close());

  async function setUp() {
    h = await appHarnessOn(engine, T0);
    const tenantId = operator.tenantId;
    const olga = await addPerson(h.deps, { tenantId, email: 'olga@example.com', role: 'approver' });
    const ivan = await addPerson(h.deps, { tenantId, email: 'ivan@example.com', role: 'approver' });
    const token = (email: string) =>
      createToken(h.deps, { email, name: 'laptop', scopes: ['read', 'draft'], writePolicy: 'draft' });
    const connection = (personId: string, grantId: string): OAuthConnection => ({
      grantId,
      tenantId,
      personId,
      clientId: 'cl-1',
      clientName: 'Host',
      redirectHost: '127.0.0.1:9',
      scopes: ['read'],
      writePolicy: 'draft',
      createdAt: T0,
      revokedAt: null,
      lastUsedAt: null,
    });
    await h.deps.store.write(async (tx) => {
      await tx.oauth.insertConnection(connection(olga.id, 'gr-olga'));
      await tx.oauth.insertConnection(connection(ivan.id, 'gr-ivan'));
    });
    return { olga, ivan, olgas: await token(olga.email), ivans: await token(ivan.email) };
  }
  const live = async (grantId: string) =>
    (await h.deps.store.read((tx) => tx.oauth.getConnection(grantId)))!.revokedAt === null;

  it('revokes the person’s tokens and connections; another person’s keep working', async () => {
    const { olgas, ivans } = await setUp();
    expect(await authenticateToken(h.deps, olgas.secret)).not.toBeNull();
    const { ended } = await resetPassword(h.deps, 'olga@example.com');
    expect(ended).toEqual({ tokens: 1, connections: 1 });
    expect(await authenticateToken(h.deps, olgas.secret)).toBeNull();
    expect(await live('gr-olga')).toBe(false);
    expect(await authenticateToken(h.deps, ivans.secret)).not.toBeNull();
    expect(await live('gr-ivan')).toBe(true);
  });

  it('--keep-tokens keeps them', async () => {
    const { olgas } = await setUp();
    const { ended } = await resetPassword(h.deps, 'olga@example.com', { keepTokens: true });
    expect(ended).toEqual({ tokens: 0, connections: 0 });
    expect(await authenticateToken(h.deps, olgas.secret)).not.toBeNull();
    expect(await live('gr-olga')).toBe(true);
  });

  it('a reset or a disable keeps a change made between looking the person up and writing (no lost update)', async () => {
    const { olga } = await setUp();
    for (const act of [
      (deps: typeof h.deps) => resetPassword(deps, 'olga@example.com', { keepTokens: true }),
      (deps: typeof h.deps) => disablePerson(deps, 'olga@example.com'),
    ]) {
      // Someone changes Olga's role after the lookup, before the write: the write must see it.
      const role =
        (await h.deps.store.read((tx) => tx.people.getPerson(olga.id)))!.role === 'viewer'
          ? 'approver'
          : 'viewer';
      let raced = false;
      const store = h.deps.store;
      const racing = new Proxy(store, {
        get(target, property) {
          if (property === 'write')
            return async (work: Parameters<typeof store.write>[0]) => {
              if (!raced) {
                raced = true;
                await target.write(async (tx) => {
                  const now = (await tx.people.getPerson(olga.id))!;
                  await tx.people.updatePerson({ ...now, role });
                });
              }
              return target.write(work);
            };
          const value = Reflect.get(target, property) as unknown;
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      await act({ ...h.deps, store: racing });
      expect(raced).toBe(true);
      expect((await h.deps.store.read((tx) => tx.people.getPerson(olga.id)))!.role).toBe(role);
    }
  });
});
