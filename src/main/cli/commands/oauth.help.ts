import type { CommandDoc } from '../command-doc.js';
import { DATABASE } from '../command-doc.js';

export const oauthHelp: CommandDoc = {
  name: 'oauth',
  usage: ['holdfast oauth rotate-keys [--purge-retired] [--json]'],
  summary: 'A new signing key for the embedded authorization server, shared by every instance.',
  details: [
    'Keys are stored sealed with a secret derived from the audit key. Retired keys keep verifying for 24 hours;',
    'restart instances one by one, since each signs with the key it started with.',
  ],
  options: [...DATABASE, 'purge-retired', 'json'],
  examples: ['holdfast oauth rotate-keys', 'holdfast oauth rotate-keys --purge-retired'],
};
