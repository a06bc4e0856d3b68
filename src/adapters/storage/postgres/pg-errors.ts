import { DomainError } from '../../../domain/errors.js';
import { ReferenceTakenError } from '../../../ports/store/index.js';
import { databaseUnavailable, isConnectionLoss } from './pg-connection-loss.js';

/** SQLSTATEs the store retries as a whole transaction. */
export const RETRYABLE_SQLSTATES = new Set(['40001', '40P01']);

export function sqlStateOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The one place PostgreSQL failures become domain errors; anything unknown stays an internal error. */
export function mapPgError(error: unknown): unknown {
  if (error instanceof DomainError || error instanceof ReferenceTakenError) return error;
  if (isConnectionLoss(error)) return databaseUnavailable();
  const code = sqlStateOf(error);
  const constraint = (error as { constraint?: unknown } | null)?.constraint;
  // The external-busy trigger raises 23P01 too, with its own message: one refusal, said precisely.
  if (code === '23P01' && (error as Error).message === 'HOLDFAST_EXTERNAL_BUSY')
    return new DomainError(
      'SLOT_UNAVAILABLE',
      'The requested time overlaps busy time imported from an external calendar.',
    );
  if (code === '23P01')
    return new DomainError('SLOT_UNAVAILABLE', 'The requested time overlaps an existing booking.');
  // The edge refuses NUL and broken UTF-16 first; should a value slip past it, answer like SQLite would refuse it.
  if (code === '22021' || code === '22P05')
    return new DomainError('INVALID_ARGUMENTS', 'A text value contains a character that cannot be stored.', {
      field: '(arguments)',
    });
  if (code === '23505' && constraint === 'bookings_reference')
    return new ReferenceTakenError(String((error as Error).message));
  return error;
}
