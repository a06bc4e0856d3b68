import type { Approval } from '../../domain/approval/approval.js';
import type { Scope, WritePolicy } from '../../domain/identity/identity.js';
import type { Instant } from '../../domain/time/instant.js';
import type { StoreTx } from '../../ports/store/index.js';

/**
 * agent-access (seed 004): an operation is run only while the connection that drafted it could
 * still draft it — not revoked or expired, still holding `draft`, its write policy not turned to
 * readonly — since a person confirming a stale draft of a connection they have since cut off
 * would act on a request nobody stands behind any more. Null when it may run, else why not.
 * A local connection (stdio, an embedding application) and an outside issuer's token answer for
 * themselves: their process or issuer ends them, and nothing here records them.
 */
export async function draftingConnectionRefusal(
  tx: StoreTx,
  approval: Approval,
  now: Instant,
): Promise<string | null> {
  const id = approval.connectionId;
  if (!id) return null;
  const token = await tx.tokens.getToken(approval.tenantId, id);
  if (token) {
    if (token.personId !== approval.subject) return 'the connection that drafted it belongs to someone else';
    if (token.revokedAt !== null) return 'the connection that drafted it was revoked since';
    if (token.expiresAt <= now) return 'the connection that drafted it has expired since';
    return accessRefusal(token.scopes, token.writePolicy);
  }
  const grant = await tx.oauth.getConnection(id);
  if (grant) {
    if (grant.personId !== approval.subject || grant.tenantId !== approval.tenantId)
      return 'the connection that drafted it belongs to someone else';
    if (grant.revokedAt !== null) return 'the connection that drafted it was revoked since';
    return accessRefusal(grant.scopes, grant.writePolicy);
  }
  return null;
}

function accessRefusal(scopes: readonly Scope[], policy: WritePolicy): string | null {
  if (!scopes.includes('draft') && !scopes.includes('write'))
    return 'the connection that drafted it may no longer draft (its scopes changed)';
  if (policy === 'readonly')
    return 'the connection that drafted it is read-only now (its write policy changed)';
  return null;
}
