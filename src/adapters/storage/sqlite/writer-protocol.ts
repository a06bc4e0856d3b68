import { DomainError } from '../../../domain/errors.js';
import type { ErrorCode, ErrorDetails } from '../../../domain/errors.js';
import type { AggregateName } from '../../../ports/store/index.js';
import { ReferenceTakenError } from '../../../ports/store/index.js';
import { NotSingleCallError } from '../sql/single-call.js';

/**
 * Messages between the thread that runs use cases and the SQLite writer (a worker thread, or
 * the same thread for comparison). Use cases keep running where they are; every store call of
 * a write travels here as data, so the writer's BEGIN, savepoints and the COMMIT with its fsync
 * never block request handling.
 */

export interface StoreCall {
  readonly aggregate: AggregateName;
  readonly method: string;
  readonly args: readonly unknown[];
}

export type WriterRequest =
  /** A write of exactly one call: its own savepoint; answered once the batch holding it committed. */
  | { readonly kind: 'one'; readonly id: number; readonly call: StoreCall }
  /** A write of several calls begins: a savepoint, and nothing else runs until it closes. */
  | { readonly kind: 'open'; readonly unit: number }
  /** One call of an open write, answered at once. */
  | { readonly kind: 'call'; readonly unit: number; readonly id: number; readonly call: StoreCall }
  /** Keep (answered once committed) or undo the open write. */
  | { readonly kind: 'close'; readonly unit: number; readonly id: number; readonly keep: boolean }
  /** Commit what is open, close the connection, answer. */
  | { readonly kind: 'shutdown'; readonly id: number };

export type WireError =
  | {
      readonly type: 'domain';
      readonly code: ErrorCode;
      readonly message: string;
      readonly details: ErrorDetails;
      readonly recovery: string;
    }
  | { readonly type: 'reference-taken' | 'not-single-call'; readonly message: string }
  | { readonly type: 'other'; readonly name: string; readonly message: string; readonly code?: string };

export type WriterReply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly error: WireError };

/** A writer that could not start or stopped: every waiting and later write fails with it. */
export interface WriterFailure {
  readonly failed: WireError;
}

export function toWire(error: unknown): WireError {
  if (error instanceof DomainError)
    return {
      type: 'domain',
      code: error.code,
      message: error.message,
      details: error.details,
      recovery: error.recovery,
    };
  if (error instanceof ReferenceTakenError) return { type: 'reference-taken', message: error.message };
  if (error instanceof NotSingleCallError) return { type: 'not-single-call', message: error.message };
  const e = error instanceof Error ? error : new Error(String(error));
  const code = (e as { code?: unknown }).code;
  return { type: 'other', name: e.name, message: e.message, ...(typeof code === 'string' ? { code } : {}) };
}

export function fromWire(wire: WireError): Error {
  switch (wire.type) {
    case 'domain':
      return new DomainError(wire.code, wire.message, wire.details, wire.recovery);
    case 'reference-taken':
      return new ReferenceTakenError(wire.message);
    case 'not-single-call':
      return new NotSingleCallError(wire.message);
    default:
      return Object.assign(new Error(wire.message), {
        name: wire.name,
        ...(wire.code ? { code: wire.code } : {}),
      });
  }
}
