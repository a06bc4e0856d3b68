import { DomainError } from '../../../domain/errors.js';
import { ReferenceTakenError } from '../../../ports/store/index.js';

const EXTERNAL_BUSY_MESSAGE = 'The requested time overlaps busy time imported from an external calendar.';

/** The one place SQLite failures become domain errors; anything unknown stays an internal error. */
export function mapSqliteError(error: unknown): unknown {
  if (error instanceof DomainError || error instanceof ReferenceTakenError) return error;
  const message = error instanceof Error ? error.message : '';
  const code = (error as { code?: unknown } | null)?.code;
  if (message.includes('HOLDFAST_EXTERNAL_BUSY')) {
    return new DomainError('SLOT_UNAVAILABLE', EXTERNAL_BUSY_MESSAGE);
  }
  if (message.includes('HOLDFAST_OVERLAP')) {
    return new DomainError('SLOT_UNAVAILABLE', 'The requested time overlaps an existing booking.');
  }
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' && message.includes('bookings.reference')) {
    return new ReferenceTakenError(message);
  }
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
    return new DomainError('INTERNAL', 'The database is busy; retry.', { retryAfterMs: 100 });
  }
  return error;
}
