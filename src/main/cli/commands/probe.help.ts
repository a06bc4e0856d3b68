import type { CommandDoc } from '../command-doc.js';

export const probeHelp: CommandDoc = {
  name: 'probe',
  usage: ['holdfast probe URL [--token T]'],
  summary:
    'What an agent host would see of a Holdfast server, read-only: health, OAuth metadata, protocol, tools, one read.',
  details: [
    'Nothing is written (the reads leave their audit records). Exit 0 when every step passed, 1 when one failed.',
    'A token on the command line is visible to other local users while the probe runs: use a short-lived, read-only one.',
  ],
  options: ['token'],
  examples: ['holdfast probe https://holdfast.example.com --token hf_pat_…'],
};
