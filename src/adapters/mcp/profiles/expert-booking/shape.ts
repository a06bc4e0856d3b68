import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { AnswerShape, CallMeta } from '../../tool-kit.js';
import type { ToolError } from '../../tool-error.js';

/**
 * expert-booking's envelope (seed 000): `{ ok, data | error, meta }`, its meta exactly the seed's
 * fields (`cache` on every answer: HIT/MISS for a search, BYPASS for everything else), and its
 * own codes where Holdfast's name the same failure otherwise.
 */
const CODES: Readonly<Record<string, string>> = {
  HOLD_EXPIRED: 'BOOKING_EXPIRED',
  APPROVAL_EXPIRED: 'HUMAN_APPROVAL_EXPIRED',
  APPROVAL_MISMATCH: 'APPROVAL_INTENT_MISMATCH',
};

/** How this contract's agent goes on from a refusal Holdfast words for its own tools. */
const RECOVERY: Readonly<Record<string, string>> = {
  APPROVAL_REQUIRED:
    'Show details.summary to the person and ask them to approve at details.approveUrl; once they did, call booking.confirm_booking again with humanApproval.approvalId = details.approvalId, approvedAt = when they approved, and intent/intentHash copied from confirmationIntent.',
  APPROVAL_PENDING:
    'The person has not decided yet: wait for them at details.approveUrl, then call booking.confirm_booking again.',
  HUMAN_APPROVAL_EXPIRED:
    'Ask the person again: call booking.confirm_booking with a new humanApproval.approvalId to get a new approval page, and confirm within 120 seconds of their decision.',
  APPROVAL_INTENT_MISMATCH:
    'Read the booking again (booking.get_booking), show its confirmationIntent to the person, and have them approve that one.',
  APPROVAL_INTENT_HASH_MISMATCH:
    'Copy intent and intentHash from confirmationIntent unchanged; never rebuild or edit them.',
  BOOKING_EXPIRED: 'The hold lapsed: search again (booking.search_available_slots) and hold a slot anew.',
  PAYMENT_PENDING: 'Ask the user to finish payment, then retry confirmation before expiry.',
};

/** The seed's own words, where it gives them. */
const MESSAGES: Readonly<Record<string, string>> = {
  PAYMENT_PENDING: 'Payment has not completed; the booking remains held until expiresAt.',
};

/** The seed's code for a Holdfast refusal; a check of its own says which (details.contractCode). */
export function expertError(error: ToolError) {
  const { contractCode, ...details } = error.details;
  const code = typeof contractCode === 'string' ? contractCode : (CODES[error.code] ?? error.code);
  // An approval's own intent is Holdfast's; this contract's agent approves the v1 confirmationIntent.
  if (error.code === 'APPROVAL_REQUIRED') {
    delete details.intent;
    delete details.intentHash;
  }
  const recovery = RECOVERY[code] ? { action: RECOVERY[code] } : error.recovery;
  return { code, message: MESSAGES[code] ?? error.message, retryable: error.retryable, details, recovery };
}

const META_KEYS = [
  'traceId',
  'spanId',
  'operationId',
  'clientSentAt',
  'serverReceivedAt',
  'serverResultCreatedAt',
] as const;

function metaOf(meta: CallMeta) {
  const kept: Record<string, unknown> = {};
  for (const key of META_KEYS) if (meta[key] !== undefined) kept[key] = meta[key];
  kept.cache = meta.cache === 'HIT' || meta.cache === 'MISS' ? meta.cache : 'BYPASS';
  return kept;
}

const metaSchema = z.object({
  traceId: z.string(),
  spanId: z.string().optional(),
  operationId: z.string(),
  clientSentAt: z.string().optional(),
  serverReceivedAt: z.string(),
  serverResultCreatedAt: z.string(),
  cache: z.enum(['HIT', 'MISS', 'BYPASS']),
});

const errorSchema = z.object({
  code: z.string(),
  message: z.string(),
  retryable: z.boolean(),
  details: z.record(z.string(), z.unknown()),
  recovery: z.object({ action: z.string() }),
});

const textOf = (envelope: unknown) => JSON.stringify(envelope);

export const expertShape: AnswerShape = {
  output: (data) =>
    z.object({ ok: z.boolean(), data: data.optional(), error: errorSchema.optional(), meta: metaSchema }),
  ok: ({ data, meta }): CallToolResult => {
    const envelope = { ok: true, data, meta: metaOf(meta) };
    return { content: [{ type: 'text', text: textOf(envelope) }], structuredContent: envelope };
  },
  error: ({ error, meta }): CallToolResult => {
    const envelope = { ok: false, error: expertError(error), meta: metaOf(meta) };
    return {
      isError: true,
      content: [{ type: 'text', text: textOf(envelope) }],
      structuredContent: envelope,
    };
  },
};
