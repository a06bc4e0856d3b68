import type { CommandDoc } from '../command-doc.js';
import { DATABASE } from '../command-doc.js';

export const auditHelp: CommandDoc = {
  name: 'audit',
  usage: [
    'holdfast audit verify [--checkpoint FILE] [--allow-unkeyed] [--json]',
    'holdfast audit checkpoint [--out FILE]',
    'holdfast audit tail [-n N] [--json]',
  ],
  summary: 'Verify the keyed audit chain, anchor it with a checkpoint, or read its newest records.',
  options: [...DATABASE, 'checkpoint', 'allow-unkeyed', 'out', 'lines', 'json'],
  examples: [
    'holdfast audit checkpoint --out /mnt/elsewhere/checkpoints.log',
    'holdfast audit verify --checkpoint /mnt/elsewhere/checkpoints.log',
  ],
};
