import { randomBytes, randomInt } from 'node:crypto';
import type { Ids } from '../../ports/ids.js';

// Crockford base32 without I, L, O, U: easy to read aloud and type.
const REFERENCE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export const randomIds: Ids = {
  newId: (prefix) => `${prefix}_${randomBytes(16).toString('base64url')}`,
  newReference: () =>
    `HF-${Array.from({ length: 6 }, () => REFERENCE_ALPHABET[randomInt(REFERENCE_ALPHABET.length)]).join('')}`,
};
