import { createHash } from 'node:crypto';

/**
 * A booking's UID in feeds: stable for the booking, and not its id (booking ids are
 * unguessable handles; a feed address leaks easily).
 */
export function feedUid(tenantId: string, bookingId: string): string {
  return `${createHash('sha256').update(`${tenantId}\u0000${bookingId}`).digest('hex').slice(0, 32)}@holdfast`;
}
