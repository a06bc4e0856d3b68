import type { CommandDoc } from '../command-doc.js';
import { DATABASE } from '../command-doc.js';

export const paymentsHelp: CommandDoc = {
  name: 'payments',
  usage: [
    'holdfast payments set BOOKING_ID PAID|FAILED|CLOSED|PENDING [--amount A --currency C]',
    'holdfast payments refund BOOKING_ID     ask the payment provider to return money owed back',
    'holdfast payments refunded BOOKING_ID   record money owed back as returned outside Holdfast',
  ],
  summary:
    'Tell the local payment simulator what the provider reports for a booking; settle money owed back after a paid booking was cancelled.',
  options: [...DATABASE, 'amount', 'currency', 'allow-private-upstreams', 'json'],
  examples: ['holdfast payments set bk_2hX… PAID', 'holdfast payments refunded bk_2hX…'],
};
