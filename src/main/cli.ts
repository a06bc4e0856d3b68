#!/usr/bin/env node
import { jsonLogger } from '../adapters/log/json-logger.js';
import { startTracing } from '../adapters/telemetry/tracing.js';
import { explain } from './cli-errors.js';
import { commandDoc, commandHelp, globalHelp } from './cli-help.js';
import { readConfig, UsageError } from './config.js';
import { runOperatorCommand } from './operator-commands.js';
import { runHttpServer } from './serve.js';
import { runStdioServer } from './stdio.js';
import { holdfastVersion } from './version.js';

const print = (text: string) => process.stdout.write(`${text}\n`);

async function main(argv: readonly string[]): Promise<void> {
  const config = readConfig(argv, process.env);
  if (config.command === 'version')
    return void print(`holdfast ${holdfastVersion} (Node.js ${process.version})`);
  if (config.command === 'help') {
    if (config.helpFor === null) return void process.stdout.write(globalHelp());
    const doc = commandDoc(config.helpFor);
    if (!doc) throw new UsageError(`unknown command "${config.helpFor}" (see holdfast --help)`);
    return void process.stdout.write(commandHelp(doc));
  }
  if (!commandDoc(config.command))
    throw new UsageError(`unknown command "${config.command}" (see holdfast --help)`);
  const logger = jsonLogger();
  switch (config.command) {
    case 'serve': {
      const tracing = startTracing(process.env, holdfastVersion);
      const stop = await runHttpServer(config, logger);
      const shutdown = () =>
        void stop()
          .then(() => tracing.shutdown())
          .then(() => process.exit(0));
      process.once('SIGINT', shutdown);
      process.once('SIGTERM', shutdown);
      return;
    }
    case 'stdio':
      startTracing(process.env, holdfastVersion);
      return runStdioServer(config, logger);
    default:
      process.exitCode = await runOperatorCommand(config, print);
  }
}

const argv = process.argv.slice(2);
main(argv).catch((error: unknown) => {
  const { line, exitCode } = explain(error, argv);
  process.stderr.write(`holdfast: ${line}\n`);
  if (argv.includes('--debug') && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  process.exit(exitCode);
});
