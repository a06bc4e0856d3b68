import { describe, expect, it } from 'vitest';
import { nodeCredentials, scryptCredentials } from '../../../src/adapters/ids/node-credentials.js';

describe('password hashes (scrypt)', () => {
  it('production hashes at N=2^15, r=8, p=1, with a fresh salt each time', async () => {
    const [a, b] = await Promise.all([
      nodeCredentials.hashPassword('correct horse'),
      nodeCredentials.hashPassword('correct horse'),
    ]);
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(a).not.toBe(b);
  });

  it('a hash verifies at the cost it records, whichever cost the verifier hashes new ones at', async () => {
    const cheap = scryptCredentials(2 ** 10);
    const hash = await cheap.hashPassword('correct horse');
    expect(hash).toMatch(/^scrypt\$1024\$/);
    expect(await nodeCredentials.verifyPassword('correct horse', hash)).toBe(true);
    expect(await nodeCredentials.verifyPassword('correct horsf', hash)).toBe(false);
    const strong = await nodeCredentials.hashPassword('pässwörd');
    // NFKC: the same password typed with composed or decomposed characters.
    expect(await cheap.verifyPassword('pa\u0308sswo\u0308rd', strong)).toBe(true);
    expect(await cheap.verifyPassword('password', strong)).toBe(false);
    expect(await cheap.verifyPassword('x', 'bcrypt$whatever')).toBe(false);
  });
});
