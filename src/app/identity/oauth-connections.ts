import { DomainError } from '../../domain/errors.js';
import type { Person, Scope, WritePolicy } from '../../domain/identity/identity.js';
import { SCOPES, scopesOfRole, withRead } from '../../domain/identity/identity.js';
import type { OAuthConnection } from '../../domain/identity/oauth.js';
import { policiesOffered } from '../../domain/identity/oauth.js';
import type { Principal } from '../../domain/identity/principal.js';
import type { AppDeps } from '../deps.js';
import type { ChosenToolMode } from './tokens.js';
import { chosenToolMode, principalFor } from './tokens.js';

/** What a consent page offers: the scopes asked for that the person may give, and those they may not. */
export function consentOffer(
  person: Person,
  requested: readonly string[],
  tenantDefault: WritePolicy = 'draft',
) {
  const asked = SCOPES.filter((s) => requested.includes(s));
  // A client that names no scope of ours gets what an ordinary agent needs, never `sensitive`.
  const wanted: readonly Scope[] = asked.length > 0 ? withRead(asked) : ['read', 'draft', 'write'];
  const allowed = scopesOfRole(person.role);
  return {
    grantable: wanted.filter((s) => allowed.includes(s)),
    refused: wanted.filter((s) => !allowed.includes(s)),
    policies: policiesOffered(person.role, tenantDefault),
  };
}

/**
 * The person's choice, checked against what was asked and their role: the scopes they ticked
 * (at least one) and the write policy the connection gets.
 */
export function checkConsent(
  person: Person,
  requested: readonly string[],
  chosen: readonly string[],
  writePolicy: string,
): { scopes: readonly Scope[]; writePolicy: WritePolicy } {
  const offer = consentOffer(person, requested);
  // A scope the page did not offer (a forged form) is refused, not dropped.
  const unoffered = chosen.filter((s) => !(offer.grantable as readonly string[]).includes(s));
  if (unoffered.length > 0)
    throw new DomainError('INVALID_ARGUMENTS', `scope: ${unoffered.join(', ')} was not offered`, {
      field: 'scope',
    });
  const ticked = offer.grantable.filter((s) => chosen.includes(s));
  // `read` comes with every grant (its box is shown ticked and fixed), when the role has it.
  const scopes = offer.grantable.includes('read') ? withRead(ticked) : ticked;
  if (scopes.length === 0)
    throw new DomainError(
      'INVALID_ARGUMENTS',
      'scope: choose at least one of ' + offer.grantable.join(', '),
      {
        field: 'scope',
      },
    );
  const policy = offer.policies.find((p) => p === writePolicy);
  if (!policy)
    throw new DomainError(
      'INVALID_ARGUMENTS',
      `writePolicy: a ${person.role} may choose ${offer.policies.join(', ')}`,
      { field: 'writePolicy' },
    );
  return { scopes, writePolicy: policy };
}

export async function recordConnection(
  deps: AppDeps,
  connection: Omit<OAuthConnection, 'createdAt' | 'revokedAt' | 'lastUsedAt'>,
) {
  const stored: OAuthConnection = {
    ...connection,
    createdAt: deps.clock.now(),
    revokedAt: null,
    lastUsedAt: null,
  };
  await deps.store.write(async (tx) => {
    await tx.oauth.insertConnection(stored);
    await tx.oauth.keepClient(connection.clientId);
  });
  return stored;
}

const TOUCH_EVERY_MS = 60_000;

/**
 * The principal an access token of a grant stands for: the person and tenant of its live
 * connection, the token's scopes within what the person consented to and their role allows
 * now, and the write policy they chose. Null when the grant was revoked or the person disabled.
 */
export async function authenticateGrant(
  deps: AppDeps,
  claims: { readonly grantId: string; readonly subject: string; readonly scopes: readonly string[] },
): Promise<{ principal: Principal; toolMode: ChosenToolMode; connection: OAuthConnection } | null> {
  const now = deps.clock.now();
  const found = await deps.store.read(async (tx) => {
    const connection = await tx.oauth.getConnection(claims.grantId);
    const person = connection && (await tx.people.getPerson(connection.personId));
    const tenant = person && (await tx.tenants.getTenant(person.tenantId));
    return connection && person && tenant ? { connection, person, tenant } : null;
  });
  if (!found) return null;
  const { connection, person, tenant } = found;
  if (
    connection.revokedAt !== null ||
    person.disabledAt !== null ||
    person.id !== claims.subject ||
    person.tenantId !== connection.tenantId
  )
    return null;
  if (connection.lastUsedAt === null || now - connection.lastUsedAt >= TOUCH_EVERY_MS)
    await deps.store.write((tx) => tx.oauth.touchConnection(connection.grantId, now));
  const role = scopesOfRole(person.role);
  // The token carries what its client asked for; `read` comes with every grant.
  const scopes = connection.scopes.filter(
    (s) => (s === 'read' || claims.scopes.includes(s)) && role.includes(s),
  );
  return {
    connection,
    toolMode: chosenToolMode(tenant),
    principal: principalFor(tenant, person, {
      connectionId: connection.grantId,
      name: connection.clientName,
      scopes,
      writePolicy: connection.writePolicy,
    }),
  };
}

export function listConnections(
  deps: AppDeps,
  tenantId: string,
  personId?: string,
): Promise<OAuthConnection[]> {
  return deps.store.read((tx) => tx.oauth.listConnections(tenantId, personId));
}

/** Ends a connection: its access tokens stop at the next call, its refresh tokens are gone. */
export async function revokeConnection(deps: AppDeps, tenantId: string, grantId: string): Promise<void> {
  const now = deps.clock.now();
  const revoked = await deps.store.write(async (tx) => {
    const done = await tx.oauth.revokeConnection(tenantId, grantId, now);
    if (done) await tx.oauth.revokeGrant(grantId, now);
    return done;
  });
  if (!revoked) throw new DomainError('NOT_FOUND', `No live connection ${grantId} in tenant ${tenantId}.`);
}
