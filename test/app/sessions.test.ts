import { afterEach, describe, expect, it } from 'vitest';
import { addPerson, completeSetup, newSetupLink, setupLinkTarget } from '../../src/app/identity/people.js';
import { LOGIN_LIMITS, sessionOf, signIn, signOut } from '../../src/app/identity/sessions.js';
import { isDomainError } from '../../src/domain/errors.js';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '../../src/domain/identity/identity.js';
import { appHarness } from '../support/app-harness.js';

const T0 = Date.parse('2026-12-01T09:00:00Z');
const PASSWORD = 'twelve chars or more';
let harness: ReturnType<typeof appHarness>;
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
    harness = appHarness(T0);
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
    harness = appHarness(T0);
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

  it('limit guessing: after the failures an account allows, even the right password is refused', async () => {
    harness = appHarness(T0);
    await person();
    const codes: string[] = [];
    for (let i = 0; i < LOGIN_LIMITS.perAccount + 2; i++) {
      const attempt = signIn(harness.deps, { email: 'ana@example.com', password: `wrong ${i}`, address });
      codes.push(
        await attempt.then(
          () => 'ok',
          (e: unknown) => (isDomainError(e) ? e.code : 'thrown'),
        ),
      );
    }
    expect(codes.slice(0, LOGIN_LIMITS.perAccount)).toEqual(Array(LOGIN_LIMITS.perAccount).fill('FORBIDDEN'));
    expect(codes.slice(LOGIN_LIMITS.perAccount)).toEqual(['RATE_LIMITED', 'RATE_LIMITED']);
    const right = await signIn(harness.deps, { email: 'ana@example.com', password: PASSWORD, address }).catch(
      (e: unknown) => e,
    );
    expect(isDomainError(right, 'RATE_LIMITED')).toBe(true);
  });

  it('one address guessing across many accounts is limited too', async () => {
    harness = appHarness(T0);
    const codes = new Set<string>();
    for (let i = 0; i < LOGIN_LIMITS.perAddress + 1; i++) {
      await signIn(harness.deps, { email: `nobody${i}@example.com`, password: 'guess', address }).catch(
        (e: unknown) => codes.add(isDomainError(e) ? e.code : 'thrown'),
      );
    }
    expect([...codes].sort()).toEqual(['FORBIDDEN', 'RATE_LIMITED']);
  });

  it('setup links work once, and never for a disabled or unknown secret', async () => {
    harness = appHarness(T0);
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
});
