import { DomainError } from '../../domain/errors.js';
import type { Principal } from '../../domain/identity/principal.js';
import type { AppDeps } from '../deps.js';

/** The agent-access drafts' idempotency records (confirm and cancel alike). */
export const DRAFT_KEYS = 'agent_access_draft';

/** agent-access's writes, whose keys are one space per person (the seed's 同用户唯一 idempotencyKey). */
const PERSON_KEY_TOOLS = ['hold_slot', 'release_hold', DRAFT_KEYS];

/**
 * Refuses a key the person already used, within its retention, for another of the profile's
 * writes: a key names one request, whichever tool it went to. (A check before the write, not a
 * lock: two first uses of one key on two tools at the same instant may both pass; each is still
 * one request of its own tool.)
 */
export async function refuseKeyUsedElsewhere(
  deps: AppDeps,
  principal: Principal,
  key: string,
  tool: string,
): Promise<void> {
  const now = deps.clock.now();
  const used = await deps.store.read(async (tx) => {
    for (const other of PERSON_KEY_TOOLS.filter((t) => t !== tool)) {
      const record = await tx.idempotency.get({
        tenantId: principal.tenantId,
        subject: principal.subject,
        tool: other,
        key,
      });
      if (record && record.expiresAt > now) return other;
    }
    return null;
  });
  if (used)
    throw new DomainError(
      'IDEMPOTENCY_CONFLICT',
      `idempotencyKey ${key} was already used for ${used === DRAFT_KEYS ? 'confirm_booking or cancel_booking' : used}: use a new UUID for a new request.`,
      { idempotencyKey: key, tool: used },
    );
}
