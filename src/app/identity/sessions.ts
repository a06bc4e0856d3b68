import { DomainError } from '../../domain/errors.js';
import type { Person, Session } from '../../domain/identity/identity.js';
import { normalEmail, sessionAlive, sessionHandle } from '../../domain/identity/identity.js';
import type { Instant } from '../../domain/time/instant.js';
import type { AppDeps } from '../deps.js';

export const LOGIN_WINDOW_MS = 15 * 60_000;
/**
 * Failed sign-ins allowed in the window: per account from one address, per address, and per
 * account from everywhere. Locking an account for everyone after a handful of failures would
 * let anyone who knows an approver's email lock them out; the per-account limit across
 * addresses is high enough not to, and still bounds guessing from many addresses.
 */
export const LOGIN_LIMITS = { perAccountAndAddress: 5, perAddress: 20, perAccount: 50 } as const;

let decoy: Promise<string> | undefined;
/** A hash of nothing anyone knows, made once, to check passwords of unknown accounts against. */
function decoyHash(deps: AppDeps): Promise<string> {
  decoy ??= deps.credentials.hashPassword(deps.credentials.newSecret('decoy-'));
  return decoy;
}

export interface SignedIn {
  readonly session: Session;
  readonly person: Person;
  /** The zone the pages show this person's own time in: their setting, else their browser's (unknown until its script ran once). */
  readonly zone?: string;
}

const loginRefused = () => new DomainError('FORBIDDEN', 'Email or password is wrong.', {});
export const tooMany = (retryAfterMs: number) =>
  new DomainError('RATE_LIMITED', 'Too many failed sign-ins; wait before trying again.', {
    limit: 'login',
    retryAfterMs,
  });

/**
 * Signs a person in with their password: a fresh session (never one the browser brought: the
 * id rotates at every sign-in). Failures count per account and per address.
 */
export async function signIn(
  deps: AppDeps,
  input: { email: string; password: string; address: string },
): Promise<SignedIn & { secret: string }> {
  let email: string;
  try {
    email = normalEmail(input.email);
  } catch {
    throw loginRefused();
  }
  const keys = [
    { key: `login:pair:${email}:${input.address}`, points: LOGIN_LIMITS.perAccountAndAddress },
    { key: `login:address:${input.address}`, points: LOGIN_LIMITS.perAddress },
    { key: `login:account:${email}`, points: LOGIN_LIMITS.perAccount },
  ];
  // A locked-out account or address is refused before the password is even looked at, so
  // guessing cannot go on behind the lockout.
  for (const { key, points } of keys) {
    const state = await deps.rateLimits.check(key, points, LOGIN_WINDOW_MS);
    if (!state.ok) throw tooMany(state.retryAfterMs);
  }
  const person = await deps.store.read((tx) => tx.people.getPersonByEmail(email));
  // A hash is checked whether or not the account exists, so timing does not tell which emails do.
  const matches = await deps.credentials.verifyPassword(
    input.password.slice(0, 256),
    person?.passwordHash ?? (await decoyHash(deps)),
  );
  const ok =
    matches &&
    person !== null &&
    person.disabledAt === null &&
    person.passwordHash !== null &&
    input.password.length <= 256;
  if (!ok || !person) {
    for (const { key, points } of keys) await deps.rateLimits.take(key, points, LOGIN_WINDOW_MS);
    throw loginRefused();
  }
  const signed = await openSession(deps, person, 'password');
  await deps.rateLimits.reset(keys[0]!.key, keys[0]!.points, LOGIN_WINDOW_MS);
  return signed;
}

/** A fresh server-side session for a person who just proved who they are (never one the browser brought). */
export async function openSession(
  deps: AppDeps,
  person: Person,
  method: 'password' | 'passkey' | 'oidc',
): Promise<SignedIn & { secret: string }> {
  const secret = deps.credentials.newSecret('hf_session_');
  const now = deps.clock.now();
  const session: Session = {
    idHash: deps.credentials.hashSecret(secret),
    tenantId: person.tenantId,
    personId: person.id,
    method,
    createdAt: now,
    lastSeenAt: now,
    csrfSecret: deps.credentials.newSecret(''),
  };
  await deps.store.write((tx) => tx.sessions.insertSession(session));
  return { session, person, secret };
}

/** The live session a cookie names, touched; null when unknown, idle too long, too old, or its person disabled. */
export async function sessionOf(deps: AppDeps, secret: string | undefined): Promise<SignedIn | null> {
  if (!secret || !secret.startsWith('hf_session_') || secret.length > 100) return null;
  const idHash = deps.credentials.hashSecret(secret);
  const now = deps.clock.now();
  const found = await deps.store.read(async (tx) => {
    const session = await tx.sessions.getSession(idHash);
    const person = session && (await tx.people.getPerson(session.personId));
    return session && person ? { session, person } : null;
  });
  if (!found || !sessionAlive(found.session, now) || found.person.disabledAt !== null) {
    if (found) await deps.store.write((tx) => tx.sessions.deleteSession(idHash));
    return null;
  }
  await deps.store.write((tx) => tx.sessions.touchSession(idHash, now));
  return { session: { ...found.session, lastSeenAt: now }, person: found.person };
}

export async function signOut(deps: AppDeps, secret: string | undefined): Promise<void> {
  if (!secret) return;
  await deps.store.write((tx) => tx.sessions.deleteSession(deps.credentials.hashSecret(secret)));
}

/** A session as its person sees it on the account page: never its cookie's digest or CSRF secret. */
export interface SessionSeen {
  /** What the page's form names it by (see sessionHandle): meaningful only among the person's own. */
  readonly handle: string;
  /** 'password', 'passkey' or 'oidc'. */
  readonly method: string;
  readonly createdAt: Instant;
  readonly lastSeenAt: Instant;
  /** The session asking: the browser this page is open in. */
  readonly current: boolean;
}

/** The signed-in person's live sessions: this one first, then the most recently used. */
export async function sessionsOf(deps: AppDeps, signed: SignedIn): Promise<SessionSeen[]> {
  const now = deps.clock.now();
  const sessions = await deps.store.read((tx) => tx.sessions.listSessionsOf(signed.person.id));
  return sessions
    .filter((s) => sessionAlive(s, now))
    .map((s) => ({
      handle: sessionHandle(s),
      method: s.method,
      createdAt: s.createdAt,
      lastSeenAt: s.lastSeenAt,
      current: s.idHash === signed.session.idHash,
    }))
    .sort((a, b) => Number(b.current) - Number(a.current));
}

/**
 * Signs the person out of one of their other sessions (a browser left signed in elsewhere). A
 * handle that is not one of their own sessions, another person's included, is unknown.
 */
export async function endSession(deps: AppDeps, signed: SignedIn, handle: string): Promise<void> {
  const personId = signed.person.id;
  const ended = await deps.store.write(async (tx) => {
    const session = (await tx.sessions.listSessionsOf(personId)).find((s) => sessionHandle(s) === handle);
    if (!session) return 'unknown';
    if (session.idHash === signed.session.idHash) return 'current';
    return (await tx.sessions.deleteSessionOf(personId, session.idHash)) ? 'ended' : 'unknown';
  });
  if (ended === 'unknown')
    throw new DomainError('NOT_FOUND', 'No session like that: it may have ended already.');
  if (ended === 'current')
    throw new DomainError('INVALID_ARGUMENTS', 'That is this session: use Sign out to end it.', {
      field: 'session',
    });
}

/** Signs the person out everywhere but here (a lost phone, a shared computer); how many sessions ended. */
export async function endOtherSessions(deps: AppDeps, signed: SignedIn): Promise<number> {
  return deps.store.write((tx) => tx.sessions.deleteSessionsOf(signed.person.id, signed.session.idHash));
}

/**
 * Whether `password` is this person's (a process started with it acts for them: deltat's
 * DELTAT_PASSWORD). No session is opened; a person without a password has none to match.
 */
export async function isPasswordOf(deps: AppDeps, personId: string, password: string): Promise<boolean> {
  const person = await deps.store.read((tx) => tx.people.getPerson(personId));
  const matches = await deps.credentials.verifyPassword(
    password.slice(0, 256),
    person?.passwordHash ?? (await decoyHash(deps)),
  );
  return matches && person !== null && person.passwordHash !== null && password.length <= 256;
}
