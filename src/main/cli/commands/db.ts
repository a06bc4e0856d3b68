import type { ServerConfig } from '../../config/config.js';
import { UsageError } from '../../config/usage-error.js';
import { describeDatabase } from '../../config/database-url.js';

type Print = (text: string) => void;

export async function migrate(config: ServerConfig, print: Print): Promise<number> {
  if (config.rest[0] !== 'migrate')
    throw new UsageError('usage: holdfast db migrate [--db PATH | --database URL]');
  // buildRuntime opened (and so migrated) the database already.
  print(`The database at ${describeDatabase(config.database)} has the current schema.`);
  return 0;
}
