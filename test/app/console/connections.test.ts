import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changeAccessAs } from '../../../src/app/console/connections.js';
import { addPerson } from '../../../src/app/identity/people.js';
import { createToken } from '../../../src/app/identity/tokens.js';
import type { Person } from '../../../src/domain/identity/identity.js';
import { isDomainError } from '../../../src/domain/errors.js';
import { appHarness } from '../../support/app-harness.js';

// Changing what a token or an OAuth connection may do, as people of each role would try it:
// only within the holder's role, only one's own (an owner: the tenant's), and a connection
// only narrows what the person consented to. Every refused try leaves the stored access as it was.

let h: Awaited<ReturnType<typeof appHarness>>;
let owner: Person;
let approver: Person;
let viewer: Person;
let outsider: Person;

beforeEach(async () => {
  h = await appHarness(Date.UTC(2030, 0, 7));
  owner = await addPerson(h.deps, { tenantId: 't1', email: 'o@t1.example', role: 'owner' });
  approver = await addPerson(h.deps, { tenantId: 't1', email: 'a@t1.example', role: 'approver' });
  viewer = await addPerson(h.deps, { tenantId: 't1', email: 'v@t1.example', role: 'viewer' });
  outsider = await addPerson(h.deps, { tenantId: 't2', email: 'x@t2.example', role: 'owner' });
});
afterEach(() => h.close());

const token = async (email: string, scopes: ('read' | 'draft' | 'write' | 'sensitive')[]) =>
  (await createToken(h.deps, { email, name: 'agent', scopes, writePolicy: 'draft', ttlMs: 86_400_000 }))
    .token;
const stored = (id: string) =>
  h.deps.store.read(async (tx) => (await tx.tokens.listTokens('t1')).find((t) => t.id === id)!);
const codeOf = async (work: Promise<unknown>) => {
  try {
    await work;
    return 'OK';
  } catch (error) {
    if (isDomainError(error)) return error.code;
    throw error;
  }
};

describe('changing a token’s access in the console', () => {
  it('a person narrows their own token; an owner changes anyone’s within that person’s role', async () => {
    const mine = await token('a@t1.example', ['read', 'draft', 'write']);
    await changeAccessAs(h.deps, approver, 'token', mine.id, { scopes: ['read'], writePolicy: 'draft' });
    expect(await stored(mine.id)).toMatchObject({ scopes: ['read'], writePolicy: 'draft' });
    await changeAccessAs(h.deps, owner, 'token', mine.id, {
      scopes: ['read', 'write'],
      writePolicy: 'draft',
    });
    expect(await stored(mine.id)).toMatchObject({ scopes: ['read', 'write'] });
    // `read` comes with every token: its box is fixed on the page, so nothing ticked is read only.
    await changeAccessAs(h.deps, approver, 'token', mine.id, { scopes: ['draft'], writePolicy: 'draft' });
    expect(await stored(mine.id)).toMatchObject({ scopes: ['read', 'draft'] });
    await changeAccessAs(h.deps, approver, 'token', mine.id, { scopes: [], writePolicy: 'draft' });
    expect(await stored(mine.id)).toMatchObject({ scopes: ['read'] });
  });

  it('refuses beyond the role, someone else’s token, another tenant, a revoked token: 0 succeed, nothing changes', async () => {
    const approvers = await token('a@t1.example', ['read']);
    const owners = await token('o@t1.example', ['read', 'sensitive']);
    const viewers = await token('v@t1.example', ['read']);
    const before = await Promise.all([approvers, owners, viewers].map((t) => stored(t.id)));
    const attempts: [string, () => Promise<unknown>, string][] = [
      [
        'viewer widens own token to write',
        () =>
          changeAccessAs(h.deps, viewer, 'token', viewers.id, {
            scopes: ['read', 'write'],
            writePolicy: 'draft',
          }),
        'INVALID_ARGUMENTS',
      ],
      [
        'approver gives own token sensitive',
        () =>
          changeAccessAs(h.deps, approver, 'token', approvers.id, {
            scopes: ['sensitive'],
            writePolicy: 'draft',
          }),
        'INVALID_ARGUMENTS',
      ],
      [
        'viewer picks a policy beyond the role',
        () =>
          changeAccessAs(h.deps, viewer, 'token', viewers.id, { scopes: ['read'], writePolicy: 'direct' }),
        'INVALID_ARGUMENTS',
      ],
      [
        'owner gives the approver’s token sensitive',
        () =>
          changeAccessAs(h.deps, owner, 'token', approvers.id, {
            scopes: ['sensitive'],
            writePolicy: 'draft',
          }),
        'INVALID_ARGUMENTS',
      ],
      [
        'approver changes the owner’s token',
        () =>
          changeAccessAs(h.deps, approver, 'token', owners.id, { scopes: ['read'], writePolicy: 'draft' }),
        'NOT_FOUND',
      ],
      [
        'viewer changes the approver’s token',
        () =>
          changeAccessAs(h.deps, viewer, 'token', approvers.id, { scopes: ['read'], writePolicy: 'draft' }),
        'NOT_FOUND',
      ],
      [
        'another tenant’s owner',
        () =>
          changeAccessAs(h.deps, outsider, 'token', owners.id, { scopes: ['read'], writePolicy: 'draft' }),
        'NOT_FOUND',
      ],
      [
        'a scope that does not exist',
        () =>
          changeAccessAs(h.deps, owner, 'token', owners.id, { scopes: ['nonsense'], writePolicy: 'draft' }),
        'INVALID_ARGUMENTS',
      ],
    ];
    let succeeded = 0;
    for (const [what, attempt, expected] of attempts) {
      const code = await codeOf(attempt());
      if (code === 'OK') succeeded++;
      expect(code, what).toBe(expected);
    }
    expect(succeeded).toBe(0);
    expect(await Promise.all([approvers, owners, viewers].map((t) => stored(t.id)))).toEqual(before);

    await h.deps.store.write((tx) => tx.tokens.revokeToken('t1', owners.id, h.clock.now()));
    expect(
      await codeOf(
        changeAccessAs(h.deps, owner, 'token', owners.id, { scopes: ['read'], writePolicy: 'draft' }),
      ),
    ).toBe('INVALID_STATE');
  });

  it('an OAuth connection only narrows: neither a scope nor a looser write policy than it was granted', async () => {
    const connection = {
      grantId: 'gr-1',
      tenantId: 't1',
      personId: approver.id,
      clientId: 'https://app.example/client.json',
      clientName: 'App',
      redirectHost: 'app.example',
      scopes: ['read', 'draft'] as const,
      writePolicy: 'draft' as const,
      createdAt: h.clock.now(),
      revokedAt: null,
      lastUsedAt: null,
    };
    await h.deps.store.write((tx) =>
      tx.oauth.insertConnection({ ...connection, scopes: [...connection.scopes] }),
    );
    const stored = () => h.deps.store.read((tx) => tx.oauth.getConnection('gr-1'));
    const before = await stored();
    let succeeded = 0;
    for (const [what, input] of [
      ['a looser policy (direct)', { scopes: ['read', 'draft'], writePolicy: 'direct' }],
      ['a scope never granted (write)', { scopes: ['read', 'draft', 'write'], writePolicy: 'draft' }],
    ] as const) {
      for (const editor of [approver, owner]) {
        const code = await codeOf(changeAccessAs(h.deps, editor, 'connection', 'gr-1', input));
        if (code === 'OK') succeeded++;
        expect(code, `${editor.role}: ${what}`).toBe('INVALID_ARGUMENTS');
      }
    }
    expect(succeeded).toBe(0);
    expect(await stored()).toEqual(before);
    await changeAccessAs(h.deps, approver, 'connection', 'gr-1', {
      scopes: ['read'],
      writePolicy: 'readonly',
    });
    expect(await stored()).toMatchObject({ scopes: ['read'], writePolicy: 'readonly' });
  });
});
