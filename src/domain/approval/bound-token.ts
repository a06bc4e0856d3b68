import type { Instant } from '../time/instant.js';

/**
 * A token an agent carries to one write (bookings-mcp's approval token): bound to the tool and
 * the digest of its exact arguments, usable once — a use that fails spends it too — until it
 * expires, and only ever as good as the person's decision on the approval it stands for.
 */
export interface BoundToken {
  readonly tenantId: string;
  /** The digest of the token; the token itself is shown once and kept nowhere. */
  readonly tokenHash: string;
  readonly approvalId: string;
  readonly tool: string;
  readonly argumentsHash: string;
  readonly createdAt: Instant;
  readonly expiresAt: Instant;
  readonly usedAt: Instant | null;
  readonly usedBy: string | null;
}

/** How long such a token lasts (bookings-mcp's APPROVAL_TTL_MS). */
export const BOUND_TOKEN_TTL_MS = 10 * 60_000;

/**
 * Why a token may not be used for this call, in the gate's words, or null. `token` is as it was
 * before this use (the use itself has already spent it: a refused use cannot be retried).
 */
export function boundTokenRefusal(
  token: BoundToken | null,
  use: { readonly tool: string; readonly argumentsHash: string; readonly now: Instant },
): string | null {
  if (token === null) return 'Unknown approval token';
  if (token.usedAt !== null) return 'Approval token already used — ask for a new approval';
  if (token.tool !== use.tool)
    return `The token was approved for ${token.tool}, not ${use.tool} — it cannot be replayed against another tool`;
  if (use.now >= token.expiresAt) return 'Approval token expired — ask for a new approval';
  if (token.argumentsHash !== use.argumentsHash)
    return 'Arguments changed after approval — the token is bound to the original action';
  return null;
}
