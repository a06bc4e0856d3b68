#!/usr/bin/env node
import { jsonLogger } from '../adapters/log/json-logger.js';
import { openStore } from './compose.js';
import { readConfig, usage, UsageError } from './config.js';
import { runHttpServer, StartupError } from './serve.js';
import { runOperatorCommand } from './operator-commands.js';
import { runStdioServer } from './stdio.js';

async function main(): Promise<void> {
  const config = readConfig(process.argv.slice(2), process.env);
  const logger = jsonLogger();
  switch (config.command) {
    case 'serve': {
      const stop = await runHttpServer(config, logger);
      const shutdown = () => void stop().then(() => process.exit(0));
      process.once('SIGINT', shutdown);
      process.once('SIGTERM', shutdown);
      return;
    }
    case 'stdio':
      return runStdioServer(config, logger);
    case 'db': {
      if (config.rest[0] !== 'migrate') throw new StartupError('Usage: holdfast db migrate [--db PATH]');
      const store = await openStore(config);
      await store.close();
      process.stdout.write('The database is at the current schema.\n');
      return;
    }
    case 'sweep':
    case 'approvals':
    case 'payments':
    case 'reconciliation':
    case 'audit':
      process.exitCode = await runOperatorCommand(config, (text) => process.stdout.write(`${text}\n`));
      return;
    case 'help':
      process.stdout.write(usage);
      return;
    default:
      throw new StartupError(`Unknown command "${config.command}".\n\n${usage}`);
  }
}

main().catch((error: unknown) => {
  const known =
    error instanceof StartupError ||
    error instanceof UsageError ||
    (error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'));
  // Operators get one clear line for their own mistakes; a stack only for real bugs.
  const text =
    error instanceof Error ? (known ? error.message : (error.stack ?? error.message)) : String(error);
  process.stderr.write(`holdfast: ${text}\n`);
  process.exit(known ? 2 : 1);
});
