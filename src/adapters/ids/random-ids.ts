import { randomFillSync, randomUUID } from 'node:crypto';
import type { Ids } from '../../ports/ids.js';

// Crockford base32 without I, L, O, U: easy to read aloud and type.
const REFERENCE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

// Cryptographic randomness fetched 4 KiB at a time: one call into the CSPRNG serves 256 ids.
const pool = Buffer.alloc(4096);
let used = pool.length;

/** `n` fresh random bytes (a copy: the pool is reused). */
export function randomBytesPooled(n: number): Buffer {
  if (used + n > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const bytes = Buffer.from(pool.subarray(used, used + n));
  pool.fill(0, used, used + n);
  used += n;
  return bytes;
}

export const randomIds: Ids = {
  newId: (prefix) => `${prefix}_${randomBytesPooled(16).toString('base64url')}`,
  // 40 random bits in two groups of four, e.g. HF-7K3Q-9PXA (32 symbols: 5 bits each, no bias).
  newReference: () => {
    const bytes = randomBytesPooled(8);
    const symbol = (i: number) => REFERENCE_ALPHABET[bytes[i]! & 31];
    return `HF-${symbol(0)}${symbol(1)}${symbol(2)}${symbol(3)}-${symbol(4)}${symbol(5)}${symbol(6)}${symbol(7)}`;
  },
  newUuid: () => randomUUID(),
};
