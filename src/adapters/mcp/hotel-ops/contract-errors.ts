import { isDomainError } from '../../../domain/errors.js';
import { isInboxError } from '../../../domain/inbox/inbox-errors.js';

/** The contract's MCP-layer codes; business codes (inbox and Holdfast's own) pass through as they are. */
export type McpLayerCode =
  | 'MCP_AUTH_INVALID'
  | 'MCP_TOOL_DISABLED'
  | 'MCP_REQUEST_INVALID'
  | 'MCP_REQUEST_BODY_TOO_LARGE'
  | 'MCP_METHOD_NOT_FOUND'
  | 'MCP_TOOL_NOT_FOUND'
  | 'MCP_SUBMIT_PAYLOAD_INVALID'
  | 'MCP_INTERNAL_ERROR';

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
  readonly message: string;
  readonly details: Readonly<Record<string, unknown>>;
}

/** The one mapping of this adapter: anything thrown becomes the contract's error object; nothing internal leaks. */
export function toContractError(thrown: unknown): ContractErrorBody {
  if (thrown instanceof ContractError)
    return { code: thrown.code, message: thrown.message, details: thrown.details };
  if (isInboxError(thrown)) return { code: thrown.code, message: thrown.message, details: thrown.details };
  if (isDomainError(thrown)) {
    // Input Holdfast's own rules refused is still a bad request in this contract's words.
    const code = thrown.code === 'INVALID_ARGUMENTS' ? 'MCP_REQUEST_INVALID' : thrown.code;
    return { code, message: thrown.message, details: { ...thrown.details } };
  }
  return { code: 'MCP_INTERNAL_ERROR', message: 'The server failed; try again later.', details: {} };
}
