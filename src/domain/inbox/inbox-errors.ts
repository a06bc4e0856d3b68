/**
 * The reservation-operations contract's business failures: the contract keeps their codes and
 * messages in its own envelope, so they are a closed set of their own beside Holdfast's.
 */
export const inboxErrorCodes = [
  'MISSING_SOURCE_MESSAGE_ID',
  'SOURCE_MESSAGE_NOT_FOUND',
  'SOURCE_MESSAGE_AMBIGUOUS',
  'CASE_KEY_REQUIRED',
  'CONVERSATION_KEY_REQUIRED',
  'CONVERSATION_NOT_FOUND',
  'INVALID_OBJECT_ID',
  'OBJECT_NOT_FOUND',
  'BUSINESS_KEY_TAKEN',
  'RESULTS_ALREADY_DECIDED',
] as const;
export type InboxErrorCode = (typeof inboxErrorCodes)[number];

export class InboxError extends Error {
  constructor(
    readonly code: InboxErrorCode,
    message: string,
    readonly details: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = 'InboxError';
  }
}

export const isInboxError = (e: unknown): e is InboxError => e instanceof InboxError;
