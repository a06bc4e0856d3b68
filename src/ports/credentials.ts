/** Secrets people and agents present, and how they are checked without being stored. */
export interface Credentials {
  /** A fresh high-entropy secret with a recognisable prefix (`hf_pat_…`, `hf_setup_…`). */
  newSecret(prefix: string): string;
  /** Digest of a high-entropy secret, for lookup by it (tokens, sessions, links). */
  hashSecret(secret: string): string;
  /** A memory-hard hash of a password, with its own salt and parameters. */
  hashPassword(password: string): Promise<string>;
  /**
   * Whether `password` matches a hash from hashPassword (compared in constant time); false for a hash of
   * another scheme.
   */
  verifyPassword(password: string, hash: string): Promise<boolean>;
  /** An Ed25519 key pair for a host: the public key is stored, the private key handed over once. */
  newSigningKeyPair(): { readonly publicKey: string; readonly privateKey: string };
  /** Whether `signature` (base64url) is `publicKey`'s signature of `message`. Never throws. */
  verifySignature(publicKey: string, message: string, signature: string): boolean;
  /** Equal strings, compared in constant time. */
  same(a: string, b: string): boolean;
}
