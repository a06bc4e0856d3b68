import { resolve } from 'node:path';
import { isPostgresUrl } from '../../adapters/storage/index.js';

export { isPostgresUrl };

/** Where the data lives, for logs: never the password of a connection URL. */
export function describeDatabase(database: string): string {
  if (!isPostgresUrl(database)) return database;
  const url = new URL(database);
  url.password = url.password ? '***' : '';
  return url.toString();
}

/**
 * The options that make an operator command reach the same database (and audit key) from any
 * directory: an absolute SQLite path, a PostgreSQL URL without its password.
 */
export function cliDatabaseArgs(config: { database: string; auditKeyFile: string | null }): string {
  const database = isPostgresUrl(config.database)
    ? `--database '${describeDatabase(config.database)}'`
    : `--db ${JSON.stringify(resolve(config.database))}`;
  return config.auditKeyFile
    ? `${database} --audit-key-file ${JSON.stringify(resolve(config.auditKeyFile))}`
    : database;
}
