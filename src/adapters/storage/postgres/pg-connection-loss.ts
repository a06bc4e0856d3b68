import { DomainError, isDomainError } from '../../../domain/errors.js';

/** How long a caller should wait before trying again while the database is away. */
export const UNAVAILABLE_RETRY_AFTER_MS = 1_000;

/** Socket failures: the server refused, reset, timed out or could not be found. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server that is going away or not there yet: connection exceptions (class 08),
 * shutdown (57P01 admin, 57P02 crash), starting up or recovering (57P03), no connection slot free
 * (53300).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300)$/;

/**
 * node-postgres's own words for a connection that is gone, never came, or stopped answering (a
 * statement past its timeout). Not "timeout exceeded when trying to connect": that is a full pool
 * (the pool here waits instead), not a database away.
 */
const DRIVER_MESSAGES =
  /^(Connection terminated|Query read timeout|Client has encountered a connection error|Client was closed and is not queryable)/;

/** The losses that cost their caller a timeout: a server that stopped answering, not one that said no. */
const SLOW_LOSSES = /^(Connection terminated due to connection timeout|Query read timeout)/;

/**
 * Whether an error means the database could not be reached (or was lost mid-call), as opposed to
 * a statement it refused. Such a call may be retried: nothing it did is half-applied (a transaction
 * without its COMMIT rolls back), and a write whose COMMIT did land replays by its idempotency key.
 */
export function isConnectionLoss(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || UNAVAILABLE_STATES.test(code))) return true;
  return DRIVER_MESSAGES.test(error.message);
}

/** Whether a loss was found by waiting out a timeout (a stalled network, a hung server). */
export function isSlowLoss(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return SLOW_LOSSES.test(error.message) || (error as { code?: unknown }).code === 'ETIMEDOUT';
}

/** The one error a call gets while the database is away. */
export function databaseUnavailable(retryAfterMs = UNAVAILABLE_RETRY_AFTER_MS): DomainError<'UNAVAILABLE'> {
  return new DomainError(
    'UNAVAILABLE',
    'The database cannot be reached right now; retry the same call shortly.',
    {
      retryAfterMs: Math.max(1, Math.round(retryAfterMs)),
    },
  );
}

/** A connection lost, whether still the driver's error or already mapped to UNAVAILABLE. */
export function isUnavailable(error: unknown): boolean {
  return isDomainError(error, 'UNAVAILABLE') || isConnectionLoss(error);
}
