import { isDomainError } from '../../../domain/errors.js';
import { isInboxError } from '../../../domain/inbox/inbox-errors.js';
import type { McpLayerCode } from './contract-messages.js';
import { chineseMessage } from './contract-messages.js';

export type { McpLayerCode } from './contract-messages.js';

export class ContractError extends Error {
  constructor(
    readonly code: McpLayerCode,
    message: string,
    readonly details: Readonly<Record<string, unknown>>,
  ) {
    super(message);
  }
}

export interface ContractErrorBody {
  readonly code: string;
  /** The contract's Chinese message for the code, naming the field or scope where there is one. */
  readonly message: string;
  /** The same failure in English, with what exactly was wrong. */
  readonly message_en: string;
  readonly details: Readonly<Record<string, unknown>>;
}

/** The one mapping of this adapter: anything thrown becomes the contract's error object; nothing internal leaks. */
export function toContractError(thrown: unknown): ContractErrorBody {
  const body = (code: string, english: string, details: Readonly<Record<string, unknown>>) => ({
    code,
    message: chineseMessage(code, details),
    message_en: english,
    details,
  });
  if (thrown instanceof ContractError) return body(thrown.code, thrown.message, thrown.details);
  if (isInboxError(thrown)) return body(thrown.code, thrown.message, thrown.details);
  if (isDomainError(thrown)) {
    // Input Holdfast's own rules refused is still a bad request in this contract's words.
    const code = thrown.code === 'INVALID_ARGUMENTS' ? 'MCP_REQUEST_INVALID' : thrown.code;
    return body(code, thrown.message, { ...thrown.details });
  }
  return body('MCP_INTERNAL_ERROR', 'The server failed; try again later.', {});
}
