import type { CommandDoc } from '../command-doc.js';
import { DATABASE } from '../command-doc.js';

export const inboxHelp: CommandDoc = {
  name: 'inbox',
  usage: [
    'holdfast inbox import FILE… [--provider P] [--channel C] [--json]',
    'holdfast inbox tokens create --name NAME [--expires DAYS] [--json]',
    'holdfast inbox tokens list [--json]',
    'holdfast inbox tokens revoke ID',
  ],
  summary:
    'Put booking mail into the reservation inbox (.eml or JSON files), and the tokens that may post it.',
  details: [
    'Mail is threaded by its headers (Message-ID, In-Reply-To, References); a message already there is not added again.',
    'An ingest token may only POST /api/inbox/messages (scope inbox:ingest); it reads and books nothing.',
  ],
  options: [...DATABASE, 'provider', 'channel', 'name', 'expires', 'json'],
  examples: ['holdfast inbox import mail/*.eml', 'holdfast inbox tokens create --name "mail gateway"'],
};
