import type { CommandDoc } from '../command-doc.js';
import { DATABASE } from '../command-doc.js';

export const approvalsHelp: CommandDoc = {
  name: 'approvals',
  usage: [
    'holdfast approvals list [--json]',
    'holdfast approvals show ID [--json]',
    'holdfast approvals approve ID',
    'holdfast approvals deny ID',
  ],
  summary: 'See what agents asked a person to approve, and decide.',
  options: [...DATABASE, 'json'],
  examples: ['holdfast approvals show 3f2c1a9e-… --db ./data/holdfast.db'],
};
