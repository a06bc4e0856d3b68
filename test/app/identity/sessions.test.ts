import { afterEach, describe, expect, it } from 'vitest';
import { addPerson, completeSetup, newSetupLink, setupLinkTarget } from '../../../src/app/identity/people.js';
import {
  endOtherSessions,
  endSession,
  LOGIN_LIMITS,
  sessionOf,
  sessionsOf,
  signIn,
  signOut,
} from '../../../src/app/identity/sessions.js';
import { isDomainError } from '../../../src/domain/errors.js';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '../../../src/domain/identity/identity.js';
import { appHarness } from '../../support/app-harness.js';

const T0 = Date.parse('2026-12-01T09:00:00Z');
const PASSWORD = 'twelve chars or more';
let harness: Awaited<ReturnType<typeof appHarness>>;
afterEach(() => harness?.close());

async function person(email = 'ana@example.com') {
  const p = await addPerson(harness.deps, { tenantId: 't1', email, role: 'approver' });
  const { secret } = await newSetupLink(harness.deps, 't1', p.id);
  await completeSetup(harness.deps, secret, PASSWORD);
  return p;
}

const address = '203.0.113.7';

describe('sessions (injected clock)', () => {
  it('rotate: every sign-in is a new session id, and signing out ends it', async () => {
    harness = await appHarness(T0);
    await person();
    const first = await signIn(harness.deps, { email: 'ana@example.com', password: PASSWORD, address });
    const second = await signIn(harness.deps, { email: 'ANA@example.com ', password: PASSWORD, address });
    expect(first.secret).not.toBe(second.secret);
    expect(first.session.idHash).not.toBe(second.session.idHash);
    expect(await sessionOf(harness.deps, first.secret)).not.toBeNull();
    await signOut(harness.deps, first.secret);
    expect(await sessionOf(harness.deps, first.secret)).toBeNull();
    expect(await sessionOf(harness.deps, second.secret)).not.toBeNull();
  });

  it('end after the idle timeout, and after the absolute timeout however busy', async () => {
    harness = await appHarness(T0);
    await person();
    const idle = await signIn(harness.deps, { email: 'ana@example.com', password: PASSWORD, address });
    harness.clock.advance(SESSION_IDLE_MS - 1);
    expect(await sessionOf(harness.deps, idle.secret)).not.toBeNull(); // touched: idle time starts again
    harness.clock.advance(SESSION_IDLE_MS);
    expect(await sessionOf(harness.deps, idle.secret)).toBeNull();

    const busy = await signIn(harness.deps, { email: 'ana@example.com', password: PASSWORD, address });
    for (let t = 0; t < SESSION_ABSOLUTE_MS; t += SESSION_IDLE_MS / 2) {
      expect(await sessionOf(harness.deps, busy.secret)).not.toBeNull();
      harness.clock.advance(SESSION_IDLE_MS / 2);
    }
    expect(await sessionOf(harness.deps, busy.secret)).toBeNull();
  });

  it('limit guessing from one address; even the right password waits there, but not the person elsewhere', async () => {
    harness = await appHarness(T0);
    await person();
    const attempt = (password: string, from = address) =>
      signIn(harness.deps, { email: 'ana@example.com', password, address: from }).then(
        () => 'ok',
        (e: unknown) => (isDomainError(e) ? e.code : 'thrown'),
      );
    const codes: string[] = [];
    for (let i = 0; i < LOGIN_LIMITS.perAccountAndAddress + 2; i++) codes.push(await attempt(`wrong ${i}`));
    const n = LOGIN_LIMITS.perAccountAndAddress;
    expect(codes.slice(0, n)).toEqual(Array(n).fill('FORBIDDEN'));
    expect(codes.slice(n)).toEqual(['RATE_LIMITED', 'RATE_LIMITED']);
    expect(await attempt(PASSWORD)).toBe('RATE_LIMITED');
    // Whoever guesses cannot lock Ana out: from her own address she still gets in.
    expect(await attempt(PASSWORD, '198.51.100.20')).toBe('ok');
  });

  it('guessing one account from many addresses is bounded too', async () => {
    harness = await appHarness(T0);
    await person();
    const codes = new Set<string>();
    for (let i = 0; i < LOGIN_LIMITS.perAccount + 1; i++) {
      await signIn(harness.deps, {
        email: 'ana@example.com',
        password: 'guess',
        address: `10.0.${i}.1`,
      }).catch((e: unknown) => codes.add(isDomainError(e) ? e.code : 'thrown'));
    }
    expect([...codes].sort()).toEqual(['FORBIDDEN', 'RATE_LIMITED']);
  });

  it('one address guessing across many accounts is limited too', async () => {
    harness = await appHarness(T0);
    const codes = new Set<string>();
    for (let i = 0; i < LOGIN_LIMITS.perAddress + 1; i++) {
      await signIn(harness.deps, { email: `nobody${i}@example.com`, password: 'guess', address }).catch(
        (e: unknown) => codes.add(isDomainError(e) ? e.code : 'thrown'),
      );
    }
    expect([...codes].sort()).toEqual(['FORBIDDEN', 'RATE_LIMITED']);
  });

  it('setup links work once, and never for a disabled or unknown secret', async () => {
    harness = await appHarness(T0);
    const p = await addPerson(harness.deps, { tenantId: 't1', email: 'bo@example.com', role: 'viewer' });
    const { secret } = await newSetupLink(harness.deps, 't1', p.id);
    expect((await setupLinkTarget(harness.deps, secret))?.kind).toBe('person');
    await completeSetup(harness.deps, secret, PASSWORD);
    expect(await setupLinkTarget(harness.deps, secret)).toBeNull();
    await expect(completeSetup(harness.deps, secret, PASSWORD)).rejects.toThrow(/unknown, used or expired/);
    expect(await setupLinkTarget(harness.deps, 'hf_setup_made-up')).toBeNull();
    const late = await newSetupLink(harness.deps, 't1', p.id);
    harness.clock.advance(24 * 3_600_000);
    expect(await setupLinkTarget(harness.deps, late.secret)).toBeNull();
  });

  it('checks a password hash even for an unknown email, so timing does not tell which accounts exist', async () => {
    harness = await appHarness(T0);
    await person();
    let checks = 0;
    const real = harness.deps.credentials;
    const counted = {
      ...harness.deps,
      credentials: {
        ...real,
        verifyPassword: (p: string, h: string) => (checks++, real.verifyPassword(p, h)),
      },
    };
    await signIn(counted, { email: 'nobody@example.com', password: 'guess', address }).catch(() => undefined);
    await signIn(counted, { email: 'ana@example.com', password: 'guess', address }).catch(() => undefined);
    expect(checks).toBe(2);
  });
});

describe('a person’s own sessions (the account page)', () => {
  const code = (p: Promise<unknown>) =>
    p.then(
      () => 'ok',
      (e: unknown) => (isDomainError(e) ? e.code : 'thrown'),
    );

  it('lists the live ones, this one first, and never their digest or CSRF secret', async () => {
    harness = await appHarness(T0);
    await person();
    await person('bo@example.com');
    const old = await signIn(harness.deps, { email: 'ana@example.com', password: PASSWORD, address });
    harness.clock.advance(SESSION_IDLE_MS + 1);
    const laptop = await signIn(harness.deps, { email: 'ana@example.com', password: PASSWORD, address });
    harness.clock.advance(60_000);
    const phone = await signIn(harness.deps, { email: 'ana@example.com', password: PASSWORD, address });
    await signIn(harness.deps, { email: 'bo@example.com', password: PASSWORD, address });
    const seen = await sessionsOf(harness.deps, laptop);
    // The idle one is gone; Bo's is not Ana's.
    expect(seen.map((s) => [s.current, s.createdAt])).toEqual([
      [true, laptop.session.createdAt],
      [false, phone.session.createdAt],
    ]);
    expect(seen[0]).toEqual({
      handle: laptop.session.idHash.slice(0, 16),
      method: 'password',
      createdAt: T0 + SESSION_IDLE_MS + 1,
      lastSeenAt: T0 + SESSION_IDLE_MS + 1,
      current: true,
    });
    const shown = JSON.stringify(seen);
    for (const s of [old, laptop, phone]) {
      expect(shown).not.toContain(s.session.idHash);
      expect(shown).not.toContain(s.session.csrfSecret);
    }
  });

  it('ends one other session by its handle, and refuses another person’s, a made-up one and this one', async () => {
    harness = await appHarness(T0);
    await person();
    await person('bo@example.com');
    const here = await signIn(harness.deps, { email: 'ana@example.com', password: PASSWORD, address });
    const there = await signIn(harness.deps, { email: 'ana@example.com', password: PASSWORD, address });
    const bo = await signIn(harness.deps, { email: 'bo@example.com', password: PASSWORD, address });
    const handleOf = (s: typeof here) => s.session.idHash.slice(0, 16);
    expect(await code(endSession(harness.deps, here, handleOf(bo)))).toBe('NOT_FOUND');
    expect(await code(endSession(harness.deps, here, 'made-up'))).toBe('NOT_FOUND');
    expect(await code(endSession(harness.deps, here, ''))).toBe('NOT_FOUND');
    expect(await code(endSession(harness.deps, here, handleOf(here)))).toBe('INVALID_ARGUMENTS');
    expect(await sessionOf(harness.deps, bo.secret)).not.toBeNull();
    expect(await sessionOf(harness.deps, here.secret)).not.toBeNull();
    expect(await code(endSession(harness.deps, here, handleOf(there)))).toBe('ok');
    expect(await sessionOf(harness.deps, there.secret)).toBeNull();
    expect(await code(endSession(harness.deps, here, handleOf(there)))).toBe('NOT_FOUND');
  });

  it('signs out everywhere else: every other session of the person, none of anyone else', async () => {
    harness = await appHarness(T0);
    await person();
    await person('bo@example.com');
    const here = await signIn(harness.deps, { email: 'ana@example.com', password: PASSWORD, address });
    const others = [
      await signIn(harness.deps, { email: 'ana@example.com', password: PASSWORD, address }),
      await signIn(harness.deps, { email: 'ana@example.com', password: PASSWORD, address }),
    ];
    const bo = await signIn(harness.deps, { email: 'bo@example.com', password: PASSWORD, address });
    expect(await endOtherSessions(harness.deps, here)).toBe(2);
    for (const s of others) expect(await sessionOf(harness.deps, s.secret)).toBeNull();
    expect(await sessionOf(harness.deps, here.secret)).not.toBeNull();
    expect(await sessionOf(harness.deps, bo.secret)).not.toBeNull();
    expect((await sessionsOf(harness.deps, here)).map((s) => s.current)).toEqual([true]);
  });
});
