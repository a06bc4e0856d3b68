import type { Approval } from '../../domain/approval/approval.js';
import { burn, effectiveApprovalStatus } from '../../domain/approval/approval.js';
import type { BoundToken } from '../../domain/approval/bound-token.js';
import { BOUND_TOKEN_TTL_MS, boundTokenRefusal } from '../../domain/approval/bound-token.js';
import { DomainError } from '../../domain/errors.js';
import type { Principal } from '../../domain/identity/principal.js';
import type { Instant } from '../../domain/time/instant.js';
import type { AppDeps } from '../deps.js';
import { ownApproval } from './approvals.js';
import { releaseHold } from '../booking/release-hold.js';

/**
 * bookings-mcp's approval tokens: what an agent carries to one write, bound to the tool and its
 * exact arguments (SHA-256 of the tool name and their canonical JSON), spent on its first use
 * even when that use fails, and worth nothing until a person approved the approval it stands for.
 */

/** The digest a token binds: the tool and its arguments in canonical form (RFC 8785). */
export const boundArgumentsHash = (deps: Pick<AppDeps, 'digest'>, tool: string, args: unknown): string =>
  deps.digest.ofJson({ tool, arguments: args });

/** A token for `tool` with exactly `args`, standing for the agent's own pending approval. */
export async function mintBoundToken(
  deps: AppDeps,
  principal: Principal,
  input: { readonly approvalId: string; readonly tool: string; readonly args: unknown },
): Promise<{ token: string; expiresAt: Instant }> {
  const token = `${deps.ids.newUuid()}${deps.ids.newUuid()}`.replace(/-/g, '').slice(0, 48);
  const now = deps.clock.now();
  const bound: BoundToken = {
    tenantId: principal.tenantId,
    tokenHash: deps.credentials.hashSecret(token),
    approvalId: input.approvalId,
    tool: input.tool,
    argumentsHash: boundArgumentsHash(deps, input.tool, input.args),
    createdAt: now,
    expiresAt: now + BOUND_TOKEN_TTL_MS,
    usedAt: null,
    usedBy: null,
  };
  await deps.store.write(async (tx) => {
    if (!(await ownApproval(tx, principal, input.approvalId)))
      throw new DomainError('NOT_FOUND', `No approval ${input.approvalId}.`, {
        approvalId: input.approvalId,
      });
    await tx.approvals.insertToken(bound);
  });
  return { token, expiresAt: bound.expiresAt };
}

/**
 * Spends the token a write carries — committed before anything is checked, so a refused use can
 * never be retried — and answers the approval it stands for, approved by a person and unused.
 * Every refusal is an APPROVAL_* error in the gate's words; the approval of a refused use is
 * burned with it.
 */
export async function spendBoundToken(
  deps: AppDeps,
  principal: Principal,
  input: { readonly token: string; readonly tool: string; readonly args: unknown; readonly by: string },
): Promise<Approval> {
  const now = deps.clock.now();
  const spent = await deps.store.write((tx) =>
    tx.approvals.spendToken(deps.credentials.hashSecret(input.token), now, input.by.slice(0, 200)),
  );
  const mine = spent && spent.tenantId === principal.tenantId ? spent : null;
  const refusal = boundTokenRefusal(mine, {
    tool: input.tool,
    argumentsHash: boundArgumentsHash(deps, input.tool, input.args),
    now,
  });
  const approval = mine && (await deps.store.read((tx) => ownApproval(tx, principal, mine.approvalId)));
  if (refusal || !approval) {
    if (approval && mine && mine.usedAt === null)
      await burnApproval(deps, principal, approval, refusal ?? 'refused');
    throw new DomainError(refusalCode(refusal), refusal ?? 'Unknown approval token', {});
  }
  const status = effectiveApprovalStatus(approval, now);
  if (status === 'APPROVED') return approval;
  const why =
    status === 'PENDING'
      ? 'A person has not approved this action yet — the token is spent; ask again with request_approval'
      : status === 'DENIED'
        ? 'A person denied this action'
        : status === 'EXPIRED'
          ? 'Approval token expired — ask for a new approval'
          : 'Approval token already used — ask for a new approval';
  await burnApproval(deps, principal, approval, why);
  throw new DomainError(
    status === 'PENDING'
      ? 'APPROVAL_PENDING'
      : status === 'DENIED'
        ? 'APPROVAL_DENIED'
        : status === 'EXPIRED'
          ? 'APPROVAL_EXPIRED'
          : 'APPROVAL_USED',
    why,
    { approvalId: approval.id, status },
  );
}

/**
 * The approval behind a spent token is spent too — a use that went no further cannot be retried
 * with it — and the time its request held is given back at once (nothing is waiting for it now).
 */
export async function burnApproval(
  deps: AppDeps,
  principal: Principal,
  approval: Approval,
  reason: string,
): Promise<void> {
  if (approval.status === 'PENDING' || approval.status === 'APPROVED')
    await deps.store.write((tx) => tx.approvals.update(burn(approval, reason), approval.status));
  if (approval.action !== 'confirm_booking') return;
  await releaseHold(deps, principal, {
    bookingId: approval.bookingId,
    expectedVersion: approval.intent.version,
    idempotencyKey: deps.ids.newUuid(),
  }).catch(() => undefined);
}

function refusalCode(refusal: string | null): 'APPROVAL_MISMATCH' | 'APPROVAL_USED' | 'APPROVAL_EXPIRED' {
  if (refusal?.startsWith('Approval token already used')) return 'APPROVAL_USED';
  if (refusal?.startsWith('Approval token expired')) return 'APPROVAL_EXPIRED';
  return 'APPROVAL_MISMATCH';
}
