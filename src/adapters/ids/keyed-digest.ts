import { createHmac } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { Digest } from '../../ports/digest.js';

/**
 * HMAC-SHA256 over the RFC 8785 canonical form, for digests that are stored beside personal
 * data (a call's arguments in the audit and idempotency tables): without the key, a guessable
 * value such as a phone number cannot be found by trying candidates against the digest.
 */
export class KeyedDigest implements Digest {
  constructor(private readonly key: Buffer) {}

  ofJson(value: unknown): string {
    const canonical = canonicalize(value) ?? 'null';
    return `hmac-sha256:${createHmac('sha256', this.key).update(canonical).digest('hex')}`;
  }
}
