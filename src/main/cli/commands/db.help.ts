import type { CommandDoc } from '../command-doc.js';

export const dbHelp: CommandDoc = {
  name: 'db',
  usage: ['holdfast db migrate [--db PATH | --database URL]'],
  summary: 'Create the database or bring its schema up to date.',
  options: ['db', 'database', 'audit-key-file'],
  examples: ['holdfast db migrate --database postgres://holdfast@db:5432/holdfast'],
};
