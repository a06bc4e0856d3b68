import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Customer } from '../../domain/booking/customer.js';

/**
 * Crypto-shredding of customer details. Each customer (by normalised e-mail, else phone; a
 * booking naming neither is a customer of its own) has a random key in `customer_keys`; their
 * details are stored only sealed with it (AES-256-GCM, the key id bound in). Erasing the customer
 * deletes the key: every copy of the details — the booking rows, the outbox's snapshots, backups
 * taken after — is unreadable from then on, and nothing else needs to be found and rewritten.
 */

/** What the `customer` column holds for sealed details: `{"sealed":"<keyId>.<iv>.<tag>.<ciphertext>"}`. */
interface SealedColumn {
  readonly sealed: string;
}

export interface CustomerKey {
  readonly keyId: string;
  readonly secret: Buffer;
}

/**
 * The handle bookings store in place of the customer's address: a digest, so the address itself
 * is never written; erasure clears it from every booking of the customer.
 */
export function customerHandle(tenantId: string, key: string): string {
  return `c1:${createHash('sha256').update(`${tenantId}\n${key}`).digest('base64url')}`;
}

/** A customer's key handle, or — for a booking that names no e-mail or phone — the booking's own. */
export const bookingHandle = (bookingId: string) => `b:${bookingId}`;

export function newCustomerKey(): CustomerKey {
  return { keyId: `ck_${randomBytes(12).toString('base64url')}`, secret: randomBytes(32) };
}

export function sealCustomer(customer: Customer, key: CustomerKey): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.secret, iv).setAAD(Buffer.from(key.keyId));
  const body = Buffer.concat([cipher.update(JSON.stringify(customer)), cipher.final()]);
  const parts = [key.keyId, iv, cipher.getAuthTag(), body].map((p) =>
    typeof p === 'string' ? p : p.toString('base64url'),
  );
  return JSON.stringify({ sealed: parts.join('.') } satisfies SealedColumn);
}

/** The key id a stored `customer` column is sealed with; null when it holds none (no customer, or plain legacy JSON). */
export function sealedKeyId(column: string | null): string | null {
  if (column === null || !column.startsWith('{"sealed":')) return null;
  return (JSON.parse(column) as SealedColumn).sealed.split('.')[0] ?? null;
}

/**
 * The details a stored column holds. `erased` when it is sealed with a key that no longer
 * exists (the customer was erased, or their retention ran out).
 */
export function openCustomer(
  column: string | null,
  keys: ReadonlyMap<string, Buffer>,
): { customer: Customer | null; erased: boolean } {
  if (column === null) return { customer: null, erased: false };
  const parsed = JSON.parse(column) as Customer | SealedColumn | { erased: true };
  if ('erased' in parsed) return { customer: null, erased: true };
  if (!('sealed' in parsed)) return { customer: parsed, erased: false };
  const [keyId, iv, tag, body] = parsed.sealed.split('.');
  const secret = keys.get(keyId!);
  if (!secret) return { customer: null, erased: true };
  const decipher = createDecipheriv('aes-256-gcm', secret, Buffer.from(iv!, 'base64url'))
    .setAAD(Buffer.from(keyId!))
    .setAuthTag(Buffer.from(tag!, 'base64url'));
  const plain = Buffer.concat([decipher.update(Buffer.from(body!, 'base64url')), decipher.final()]);
  return { customer: JSON.parse(plain.toString('utf8')) as Customer, erased: false };
}

/** What a legacy row's plain details are overwritten with when they are erased. */
export const ERASED_COLUMN = '{"erased":true}';
