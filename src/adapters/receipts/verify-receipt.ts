import type { JSONWebKeySet } from 'jose';
import { compactVerify, createLocalJWKSet } from 'jose';
import type { ReceiptClaims } from '../../domain/booking/receipt.js';
import { RECEIPT_TYPE } from '../../domain/booking/receipt.js';
import { SIGNING_ALG } from '../oauth/signing-keys.js';

export type ReceiptCheck =
  | { readonly valid: true; readonly kid: string; readonly claims: ReceiptClaims }
  | { readonly valid: false; readonly reason: string };

/** The receipt as a file holds it: the compact JWS itself, or JSON that carries it (`jws`, `receipt.jws`). */
export function receiptText(text: string): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return trimmed;
  const parsed = JSON.parse(trimmed) as { jws?: unknown; receipt?: { jws?: unknown } };
  const jws = parsed.jws ?? parsed.receipt?.jws;
  if (typeof jws !== 'string') throw new Error('the JSON holds no "jws" field');
  return jws.trim();
}

/** Checks the signature against the key set, the algorithm (ES256 only) and the receipt type. */
export async function verifyReceipt(jws: string, keys: JSONWebKeySet): Promise<ReceiptCheck> {
  try {
    const { payload, protectedHeader } = await compactVerify(jws, createLocalJWKSet(keys), {
      algorithms: [SIGNING_ALG],
    });
    if (protectedHeader.typ !== RECEIPT_TYPE)
      return { valid: false, reason: `not a Holdfast receipt (typ ${String(protectedHeader.typ)})` };
    return {
      valid: true,
      kid: String(protectedHeader.kid),
      claims: JSON.parse(new TextDecoder().decode(payload)) as ReceiptClaims,
    };
  } catch (error) {
    const code = (error as { code?: string }).code;
    const reason =
      code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED'
        ? 'the signature does not match: the receipt was altered, or another key signed it'
        : code === 'ERR_JWKS_NO_MATCHING_KEY'
          ? 'no published key has its key id'
          : error instanceof Error
            ? error.message
            : String(error);
    return { valid: false, reason };
  }
}
