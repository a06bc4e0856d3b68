import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { Digest } from '../../ports/digest.js';

/** sha256 over the RFC 8785 (JCS) canonical JSON form. */
export const jcsDigest: Digest = {
  ofJson(value: unknown): string {
    const canonical = canonicalize(value) ?? 'null';
    return `sha256:${createHash('sha256').update(canonical).digest('hex')}`;
  },
};
