// The receipts adapter's door: the signer is light (JOSE and the keys load on the first receipt);
// rotating and checking load their code when a command uses them.
import type { JSONWebKeySet } from 'jose';
import type { Clock } from '../../ports/clock.js';
import type { Store } from '../../ports/store/index.js';

export { LazyReceiptSigner, RECEIPT_KEY_PURPOSE } from './lazy-receipt-signer.js';
export type { ReceiptCheck } from './verify-receipt.js';

export async function rotateReceiptKeys(store: Store, clock: Clock, secret: Buffer): Promise<string> {
  return (await import('./receipt-keys.js')).rotateReceiptKeys(store, clock, secret);
}

export async function verifyReceipt(jws: string, keys: JSONWebKeySet) {
  return (await import('./verify-receipt.js')).verifyReceipt(jws, keys);
}

export async function receiptText(text: string): Promise<string> {
  return (await import('./verify-receipt.js')).receiptText(text);
}
