import { DatabaseMissingError } from '../../adapters/storage/index.js';
import { isDomainError } from '../../domain/errors.js';
import { UsageError } from '../config/usage-error.js';
import { describeDatabase } from '../config/database-url.js';
import { StartupError } from '../runtime/startup-error.js';

/** What a person sees for an error: one line and an exit code (2: the command line; 1: it failed). */
export function explain(error: unknown, argv: readonly string[]): { line: string; exitCode: 1 | 2 } {
  if (error instanceof UsageError || error instanceof StartupError || error instanceof DatabaseMissingError)
    return { line: error.message, exitCode: 2 };
  if (isDomainError(error)) return { line: error.message, exitCode: 1 };
  const e = error as NodeJS.ErrnoException & { address?: string; port?: number };
  switch (e?.code) {
    case 'EADDRINUSE':
      return {
        line: `port ${e.port} on ${e.address} is already in use; choose another with --port`,
        exitCode: 1,
      };
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return {
        line: `permission denied: cannot write ${e.path ?? e.address ?? 'a file it needs'}`,
        exitCode: 1,
      };
    case 'EADDRNOTAVAIL':
      return { line: `cannot bind ${e.address}: no such address on this machine`, exitCode: 1 };
    case 'ECONNREFUSED':
      return { line: `cannot reach ${e.address}:${e.port}: connection refused`, exitCode: 1 };
    case 'SQLITE_CANTOPEN':
      return { line: `cannot open the SQLite database: ${e.message}`, exitCode: 1 };
  }
  if (typeof e?.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code))
    return { line: `PostgreSQL refused: ${e.message} (SQLSTATE ${e.code})`, exitCode: 1 };
  const database = argv.includes('--database')
    ? describeDatabase(argv[argv.indexOf('--database') + 1] ?? '')
    : '';
  const message = error instanceof Error ? error.message : String(error);
  return {
    line: `unexpected error: ${message.split('\n')[0]}${database ? ` (database ${database})` : ''}; run with --debug for details`,
    exitCode: 1,
  };
}
