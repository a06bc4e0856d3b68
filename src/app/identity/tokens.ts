import type { Principal } from '../../domain/identity/principal.js';
import { DomainError, isDomainError } from '../../domain/errors.js';
import type { AccessToken, Person, Scope, Tenant, WritePolicy } from '../../domain/identity/identity.js';
import {
  scopesOfRole,
  TOKEN_DEFAULT_TTL_MS,
  TOKEN_MAX_TTL_MS,
  tokenUsable,
  withRead,
} from '../../domain/identity/identity.js';
import type { AppDeps } from '../deps.js';
import { ensureTenant, personByEmail } from './people.js';

export const TOKEN_PREFIX = 'hf_pat_';

export interface NewToken {
  readonly email: string;
  readonly name: string;
  readonly scopes: readonly Scope[];
  readonly writePolicy: WritePolicy;
  readonly ttlMs?: number;
}

/** A personal access token for a person; the secret is in the answer once and never again. */
export async function createToken(
  deps: AppDeps,
  input: NewToken,
): Promise<{ token: AccessToken; secret: string }> {
  const person = await personByEmail(deps, input.email);
  if (person.disabledAt !== null)
    throw new DomainError('FORBIDDEN', `${person.email} is disabled; tokens cannot be made for them.`);
  const allowed = scopesOfRole(person.role);
  const beyond = input.scopes.filter((s) => !allowed.includes(s));
  if (beyond.length > 0)
    throw new DomainError(
      'INVALID_ARGUMENTS',
      `scopes: a ${person.role} may give their agents ${allowed.join(', ')}, not ${beyond.join(', ')}`,
      { field: 'scopes' },
    );
  const ttl = input.ttlMs ?? TOKEN_DEFAULT_TTL_MS;
  if (!(ttl > 0 && ttl <= TOKEN_MAX_TTL_MS))
    throw new DomainError('INVALID_ARGUMENTS', 'expires: from 1 second to 366 days', { field: 'expires' });
  const name = input.name.trim();
  const control = [...name].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);
  if (name.length === 0 || name.length > 60 || control)
    throw new DomainError('INVALID_ARGUMENTS', 'name: 1-60 printable characters', { field: 'name' });
  const secret = deps.credentials.newSecret(TOKEN_PREFIX);
  const now = deps.clock.now();
  const token: AccessToken = {
    id: deps.ids.newId('tok'),
    tenantId: person.tenantId,
    personId: person.id,
    name,
    scopes: withRead(input.scopes),
    writePolicy: input.writePolicy,
    secretHash: deps.credentials.hashSecret(secret),
    createdAt: now,
    expiresAt: now + ttl,
    revokedAt: null,
    lastUsedAt: null,
  };
  await deps.store.write((tx) => tx.tokens.insertToken(token));
  return { token, secret };
}

/** How often a token's last-used time is written: at most once a minute per token. */
const TOUCH_EVERY_MS = 60_000;

export interface Authenticated {
  readonly principal: Principal;
  /** Presentation, not authority: which tool surface this connection is served. */
  readonly toolMode: ChosenToolMode;
  readonly token: AccessToken;
  readonly person: Person;
}

/**
 * The principal a bearer secret stands for, or null: unknown, malformed, expired, revoked, or
 * its person disabled. The tenant, the person and the scopes all come from the token's record.
 */
export async function authenticateToken(deps: AppDeps, secret: string): Promise<Authenticated | null> {
  if (!secret.startsWith(TOKEN_PREFIX) || secret.length > 100) return null;
  const now = deps.clock.now();
  // One statement (token, person, tenant): every agent call pays for it.
  const found = await deps.store.readOne((tx) => tx.tokens.credentialOf(deps.credentials.hashSecret(secret)));
  if (
    found &&
    (!tokenUsable(found.token, now) ||
      found.person.disabledAt !== null ||
      found.person.tenantId !== found.token.tenantId)
  )
    return null;
  if (!found) return null;
  const { token, person, tenant } = found;
  // When it was last used is a note, not a gate: with the database away the call goes on to
  // answer UNAVAILABLE in its own envelope.
  if (token.lastUsedAt === null || now - token.lastUsedAt >= TOUCH_EVERY_MS)
    await deps.store
      .write((tx) => tx.tokens.touchToken(token.id, now))
      .catch((error: unknown) => {
        if (!isDomainError(error, 'UNAVAILABLE')) throw error;
      });
  return {
    token,
    person,
    toolMode: chosenToolMode(tenant),
    principal: principalFor(tenant, person, {
      connectionId: token.id,
      name: token.name,
      // A person whose role shrank takes their tokens' reach down with them.
      scopes: token.scopes.filter((s) => scopesOfRole(person.role).includes(s)),
      writePolicy: token.writePolicy,
    }),
  };
}

export interface Connection {
  readonly connectionId: string;
  readonly name: string;
  readonly scopes: readonly Scope[];
  readonly writePolicy: WritePolicy;
}

export function principalFor(tenant: Tenant, person: Person, connection: Connection): Principal {
  return {
    tenantId: tenant.id,
    subject: person.id,
    clientId: `${connection.connectionId} "${connection.name}"`,
    connectionId: connection.connectionId,
    scopes: connection.scopes,
    writePolicy: connection.writePolicy,
    limits: tenant.limits,
    ...(tenant.toolProfile !== 'inherit' ? { profile: tenant.toolProfile } : {}),
  };
}

/** The tool surface a tenant chose for its connections; undefined: the server's `--tools`. */
export type ChosenToolMode = 'flat' | 'catalog' | undefined;

export const chosenToolMode = (tenant: Tenant): ChosenToolMode =>
  tenant.toolMode === 'inherit' ? undefined : tenant.toolMode;

/** The tool surface the tenant chose, read once (the stdio connection has no credential to carry it). */
export async function tenantToolMode(deps: AppDeps, tenantId: string): Promise<ChosenToolMode> {
  const tenant = await deps.store.read((tx) => tx.tenants.getTenant(tenantId));
  return tenant ? chosenToolMode(tenant) : undefined;
}

/** The local stdio connection: whoever starts the process acts for the person named with --as. */
export async function localConnection(
  deps: AppDeps,
  email: string,
  writePolicy: WritePolicy,
  /** stdio, or an application embedding Holdfast (createHoldfast). */
  via: 'stdio' | 'embedded' = 'stdio',
): Promise<Principal> {
  const person = await personByEmail(deps, email);
  if (person.disabledAt !== null) throw new DomainError('FORBIDDEN', `${person.email} is disabled.`);
  const tenant = await deps.store.write((tx) => ensureTenant(deps, tx, person.tenantId));
  return principalFor(tenant, person, {
    connectionId: `${via}:${person.id}`,
    name: via,
    scopes: scopesOfRole(person.role),
    writePolicy,
  });
}

export async function listTokens(deps: AppDeps, tenantId: string): Promise<AccessToken[]> {
  return deps.store.read((tx) => tx.tokens.listTokens(tenantId));
}

/** A person's own tokens that still work (not revoked, not expired), newest first: the account page's list. */
export async function liveTokensOf(deps: AppDeps, person: Person): Promise<AccessToken[]> {
  const now = deps.clock.now();
  return (await listTokens(deps, person.tenantId))
    .filter((t) => t.personId === person.id && tokenUsable(t, now))
    .sort((a, b) => b.createdAt - a.createdAt);
}

export async function revokeToken(deps: AppDeps, tenantId: string, id: string): Promise<void> {
  const revoked = await deps.store.write((tx) => tx.tokens.revokeToken(tenantId, id, deps.clock.now()));
  if (!revoked) throw new DomainError('NOT_FOUND', `No live token ${id} in tenant ${tenantId}.`);
}
