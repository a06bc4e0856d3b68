import type { CommandDoc } from '../command-doc.js';
import { DATABASE } from '../command-doc.js';

export const receiptsHelp: CommandDoc = {
  name: 'receipts',
  usage: [
    'holdfast receipts verify FILE [--jwks FILE_OR_URL] [--json]',
    'holdfast receipts show BOOKING_ID [--json]',
    'holdfast receipts keys',
    'holdfast receipts rotate-key [--json]',
  ],
  summary:
    "Confirmed bookings' signed receipts (JWS, ES256): check one, print one, publish or rotate the keys.",
  details: [
    'verify: FILE holds the receipt (the compact JWS, or JSON with a "jws" field). With --jwks it needs nothing but',
    "that key set (a file, or the server's /receipts/jwks.json); without, this installation's keys. Exit 0 when the",
    'signature, the key and the receipt type check out, 1 otherwise.',
    'rotate-key: a new key signs from now on; retired keys stay published, so every receipt ever issued still verifies.',
  ],
  options: [...DATABASE, 'jwks', 'json'],
  examples: [
    'holdfast receipts show bk_4f2a… > receipt.jws',
    'holdfast receipts verify receipt.jws --jwks https://holdfast.example.com/receipts/jwks.json',
    'holdfast receipts rotate-key',
  ],
};
