import { DomainError } from '../domain/errors.js';
import type { Digest } from '../ports/digest.js';

/**
 * Opaque pagination cursors bound to the query that produced them: reusing a
 * cursor with any other query is INVALID_CURSOR, not a silently wrong page.
 */
export function encodeCursor(digest: Digest, query: unknown, position: number): string {
  const payload = JSON.stringify({ q: digest.ofJson(query).slice(-24), p: position });
  return btoa(payload).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The position stored in the cursor, or null when there is none. */
export function decodeCursor(digest: Digest, query: unknown, cursor: string | undefined): number | null {
  if (cursor === undefined) return null;
  const invalid = new DomainError('INVALID_CURSOR', 'The cursor does not belong to this query.', {
    field: 'cursor',
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(atob(cursor.replace(/-/g, '+').replace(/_/g, '/')));
  } catch {
    throw invalid;
  }
  const { q, p } = (parsed ?? {}) as { q?: unknown; p?: unknown };
  if (q !== digest.ofJson(query).slice(-24) || typeof p !== 'number' || !Number.isSafeInteger(p) || p < 0) {
    throw invalid;
  }
  return p;
}
