import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

/**
 * Where resources/list goes on: the calendars first, then the caller's bookings. The inner
 * cursor is the use case's own (bound to its query, checked there); this only says which list.
 */
export interface ListPosition {
  readonly kind: 'calendars' | 'bookings';
  readonly cursor?: string;
}

export function writeListCursor(position: ListPosition): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

export function readListCursor(cursor: unknown): ListPosition {
  if (cursor === undefined) return { kind: 'calendars' };
  const invalid = new ProtocolError(ProtocolErrorCode.InvalidParams, 'cursor: not one this server gave', {
    field: 'cursor',
  });
  if (typeof cursor !== 'string' || cursor.length > 1024) throw invalid;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid;
  }
  const { kind, cursor: inner } = (parsed ?? {}) as { kind?: unknown; cursor?: unknown };
  if ((kind !== 'calendars' && kind !== 'bookings') || (inner !== undefined && typeof inner !== 'string'))
    throw invalid;
  return inner === undefined ? { kind } : { kind, cursor: inner };
}
