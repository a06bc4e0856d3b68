/** Stable fingerprints of JSON values (canonical form, then a cryptographic hash). */
export interface Digest {
  /**
   * The digest of `value`'s RFC 8785 canonical form, prefixed with its algorithm (`sha256:…`,
   * `hmac-sha256:…`): equal JSON, equal digest, whatever the key order.
   */
  ofJson(value: unknown): string;
}
