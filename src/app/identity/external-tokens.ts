import type { Principal } from '../../domain/identity/principal.js';
import { DomainError } from '../../domain/errors.js';
import type { ExternalClaims } from '../../domain/identity/external-claims.js';
import { externalWritePolicy } from '../../domain/identity/external-claims.js';
import type { WritePolicy } from '../../domain/identity/identity.js';
import { normalEmail, scopesOfRole } from '../../domain/identity/identity.js';
import type { AppDeps } from '../deps.js';
import type { ChosenToolMode } from './tokens.js';
import { chosenToolMode, principalFor } from './tokens.js';

export type ExternalAuthentication =
  | {
      readonly ok: true;
      readonly principal: Principal;
      readonly toolMode: ChosenToolMode;
      readonly clientId: string;
    }
  | { readonly ok: false; readonly reason: string };

/**
 * The principal an external IdP's verified token stands for. The IdP says who the person is;
 * Holdfast decides what they may do: only an existing, enabled person of the tenant gets in
 * (an IdP account alone creates nobody), with the token's scopes within their role's, and the
 * write policy the operator set for IdP tokens, capped by the role.
 */
export async function authenticateExternal(
  deps: AppDeps,
  claims: ExternalClaims,
  options: { readonly defaultTenantId: string; readonly writePolicy: WritePolicy | null },
): Promise<ExternalAuthentication> {
  let email: string;
  try {
    email = normalEmail(claims.person);
  } catch (error) {
    if (error instanceof DomainError)
      return { ok: false, reason: 'the person claim is not an email address' };
    throw error;
  }
  const found = await deps.store.read(async (tx) => {
    const person = await tx.people.getPersonByEmail(email);
    const tenant = person && (await tx.tenants.getTenant(person.tenantId));
    return person && tenant ? { person, tenant } : null;
  });
  if (!found) return { ok: false, reason: 'no Holdfast person has the token’s email' };
  const { person, tenant } = found;
  if (person.disabledAt !== null) return { ok: false, reason: 'the person is disabled' };
  if (person.tenantId !== (claims.tenant ?? options.defaultTenantId))
    return { ok: false, reason: 'the person is not in the token’s tenant' };
  const role = scopesOfRole(person.role);
  const scopes = claims.scopes.filter((s) => role.includes(s));
  if (scopes.length === 0) return { ok: false, reason: 'no Holdfast scope the person’s role allows' };
  // The audit names the IdP and its client; quotas count per person and client.
  const clientId = `idp:${claims.issuer}#${claims.client}`;
  const principal = principalFor(tenant, person, {
    connectionId: `${clientId}@${person.id}`,
    name: claims.client,
    scopes,
    writePolicy: externalWritePolicy(person.role, options.writePolicy),
  });
  return { ok: true, clientId, toolMode: chosenToolMode(tenant), principal: { ...principal, clientId } };
}
