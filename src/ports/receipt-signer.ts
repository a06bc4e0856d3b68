import type { ReceiptClaims } from '../domain/booking/receipt.js';

/** A public key as published for verifying (a JSON Web Key). */
export type PublicJwk = Readonly<Record<string, string>>;

/** Signs receipts with the installation's active receipt key, and publishes every key that ever signed. */
export interface ReceiptSigner {
  /** A compact JWS (ES256) over the claims, with the signing key's id in its header. */
  sign(claims: ReceiptClaims): Promise<string>;
  /** Every receipt key's public half, active and retired: a receipt verifies as long as its key is listed. */
  publicKeys(): Promise<{ keys: PublicJwk[] }>;
  /** The issuer (`iss`) receipts carry: the server's public address. */
  readonly issuer: string;
}
