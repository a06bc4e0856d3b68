import {
  createHash,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  scrypt,
  timingSafeEqual,
  verify,
} from 'node:crypto';
import type { Credentials } from '../../ports/credentials.js';

// scrypt (RFC 7914) with N=2^15, r=8, p=1: 32 MiB and ~50-100 ms per hash (OWASP's minimum is N=2^17
// at r=8 with p=1, or equivalent; this is the strongest that keeps sign-in responsive on 2 cores).
const N = 2 ** 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const MAX_MEM = 64 * 1024 * 1024;

function scryptAsync(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { N: n, r, p, maxmem: MAX_MEM }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/**
 * The credentials with new passwords hashed at scrypt cost `n`; a hash always verifies at the cost
 * it records. Production uses N=2^15 (nodeCredentials); in-process tests of sign-in rules hash at
 * a fraction of it, the same code at a cost no property they check depends on.
 */
export function scryptCredentials(n: number): Credentials {
  return {
    ...credentialsAtAnyCost,
    async hashPassword(password) {
      const salt = randomBytes(16);
      const key = await scryptAsync(password, salt, n, R, P);
      return `scrypt$${n}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
    },
  };
}

const credentialsAtAnyCost: Omit<Credentials, 'hashPassword'> = {
  newSecret: (prefix) => `${prefix}${randomBytes(32).toString('base64url')}`,
  hashSecret: (secret) => createHash('sha256').update(secret).digest('hex'),
  async verifyPassword(password, hash) {
    const [scheme, n, r, p, salt, key] = hash.split('$');
    if (scheme !== 'scrypt' || !salt || !key) return false;
    const actual = await scryptAsync(
      password,
      Buffer.from(salt, 'base64url'),
      Number(n),
      Number(r),
      Number(p),
    );
    const expected = Buffer.from(key, 'base64url');
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  },
  newSigningKeyPair() {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    return {
      publicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64url'),
      privateKey: privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64url'),
    };
  },
  verifySignature(publicKey, message, signature) {
    try {
      const key = createPublicKey({ key: Buffer.from(publicKey, 'base64url'), format: 'der', type: 'spki' });
      return verify(null, Buffer.from(message), key, Buffer.from(signature, 'base64url'));
    } catch {
      return false;
    }
  },
  same(a, b) {
    const x = Buffer.from(a);
    const y = Buffer.from(b);
    return x.length === y.length && timingSafeEqual(x, y);
  },
};

// After the table it spreads (a const is not there before its line runs).
export const nodeCredentials: Credentials = scryptCredentials(N);
