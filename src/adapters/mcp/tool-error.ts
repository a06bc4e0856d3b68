import type { ErrorCode } from '../../domain/errors.js';
import { errorCatalog, isDomainError } from '../../domain/errors.js';

export interface ToolError {
  readonly code: ErrorCode;
  readonly message: string;
  readonly retryable: boolean;
  readonly details: Record<string, unknown>;
  readonly recovery: { readonly action: string };
}

/**
 * The one mapping from anything thrown to what a model sees. Unknown errors
 * become INTERNAL with no message, stack or driver text from the original.
 */
export function toToolError(error: unknown): ToolError {
  if (isDomainError(error)) {
    return {
      code: error.code,
      message: error.message,
      retryable: error.retryable,
      details: { ...error.details },
      recovery: { action: error.recovery },
    };
  }
  return {
    code: 'INTERNAL',
    message: 'Holdfast hit an unexpected error. Report meta.traceId if it persists.',
    retryable: errorCatalog.INTERNAL.retryable,
    details: {},
    recovery: { action: errorCatalog.INTERNAL.recovery },
  };
}
