import { createHash, randomUUID } from 'node:crypto';
import canonicalize from 'canonicalize';

/** What a host computes: sha256 over the RFC 8785 form of the intent. */
export function hashIntent(intent: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalize(intent)!).digest('hex')}`;
}

/** A host attestation copied from booking.confirmationIntent, optionally tampered. */
export function attest(
  confirmationIntent: { intent: Record<string, unknown>; intentHash: string },
  options: {
    intent?: Record<string, unknown>;
    intentHash?: string;
    approvedAt?: Date;
    approvalId?: string;
  } = {},
) {
  const intent = options.intent ?? confirmationIntent.intent;
  return {
    approvalId: options.approvalId ?? randomUUID(),
    decision: 'APPROVE',
    approvedAt: (options.approvedAt ?? new Date()).toISOString(),
    intent,
    intentHash: options.intentHash ?? (options.intent ? hashIntent(intent) : confirmationIntent.intentHash),
  };
}
