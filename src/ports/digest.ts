/** Stable fingerprints of JSON values (canonical form, then a cryptographic hash). */
export interface Digest {
  ofJson(value: unknown): string;
}
