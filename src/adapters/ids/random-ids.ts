import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { Ids } from '../../ports/ids.js';

// Crockford base32 without I, L, O, U: easy to read aloud and type.
const REFERENCE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export const randomIds: Ids = {
  newId: (prefix) => `${prefix}_${randomBytes(16).toString('base64url')}`,
  // 40 random bits in two groups of four, e.g. HF-7K3Q-9PXA.
  newReference: () => {
    const pick = () => REFERENCE_ALPHABET[randomInt(REFERENCE_ALPHABET.length)];
    const group = () => `${pick()}${pick()}${pick()}${pick()}`;
    return `HF-${group()}-${group()}`;
  },
  newUuid: () => randomUUID(),
};
