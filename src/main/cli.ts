#!/usr/bin/env node
// Only argument parsing, help and error wording are imported up front: `--version`, `--help`
// and a mistyped option answer at once. Each command loads its own code when it runs.
import * as nodeModule from 'node:module';
import { explain } from './cli/errors.js';
import { commandDoc, commandHelp, globalHelp } from './cli/help.js';
import { readCommand, readConfig } from './config/config.js';
import { UsageError } from './config/usage-error.js';
import type { ServerConfig } from './config/config.js';
import { holdfastVersion } from './runtime/version.js';

const print = (text: string) => process.stdout.write(`${text}\n`);
// `holdfast audit tail | head`: a reader that stops early is not an error worth a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

// Node 22.1+ keeps the compiled code of every module it loads from here on in a cache on disk
// (the OS temp dir; NODE_DISABLE_COMPILE_CACHE=1 turns it off): a second start compiles nothing.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

async function runServer(config: ServerConfig): Promise<void> {
  const [{ jsonLogger }, { startTracing }] = await Promise.all([
    import('../adapters/log/index.js'),
    import('../adapters/telemetry/index.js').then((telemetry) => telemetry.loadTraceExport()),
  ]);
  const pretty = config.logFormat === 'pretty' || (config.logFormat === 'auto' && process.stderr.isTTY);
  const logger = jsonLogger(undefined, pretty ? 'pretty' : 'json');
  const tracing = await startTracing(process.env, holdfastVersion);
  // Once serving: a start that fails says only why, in one line.
  const sayNodeSupport = async () => {
    const unsupported = (await import('./runtime/node-support.js')).nodeSupportWarning();
    if (unsupported) logger.warn(unsupported, { node: process.version });
  };
  if (config.command === 'stdio') {
    const { runStdioServer } = await import('./runtime/stdio.js');
    await runStdioServer(config, logger);
    return sayNodeSupport();
  }
  const { runHttpServer } = await import('./runtime/serve.js');
  const started = runHttpServer(config, logger);
  // Listening before start-up finished: a signal then waits for it, and stops what it started.
  const shutdown = () =>
    void started
      .then((stop) => stop())
      .then(() => tracing.shutdown())
      .then(() => process.exit(0));
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  await started;
  await sayNodeSupport();
}

async function main(argv: readonly string[]): Promise<void> {
  // --version and --help answer before any setting is read: a bad variable cannot hide them.
  const asked = readCommand(argv);
  if (asked.command === 'version')
    return void print(`holdfast ${holdfastVersion} (Node.js ${process.version})`);
  if (asked.command === 'help') {
    if (asked.helpFor === null) return void process.stdout.write(globalHelp());
    const doc = commandDoc(asked.helpFor);
    if (!doc) throw new UsageError(`unknown command "${asked.helpFor}" (see holdfast --help)`);
    return void process.stdout.write(commandHelp(doc));
  }
  const doc = commandDoc(asked.command);
  if (!doc) throw new UsageError(`unknown command "${asked.command}" (see holdfast --help)`);
  const config = readConfig(argv, process.env, { command: doc.name, options: doc.options });
  if (config.command === 'serve' || config.command === 'stdio') return runServer(config);
  // A client of another server: no database of its own.
  if (config.command === 'probe') {
    const { probe } = await import('./cli/commands/probe.js');
    process.exitCode = await probe(config, print);
    return;
  }
  // A receipt checked against published keys needs no database either.
  if (config.command === 'receipts' && config.rest[0] === 'verify' && config.options.jwks) {
    const { verifyOffline } = await import('./cli/commands/receipts.js');
    process.exitCode = await verifyOffline(config, print);
    return;
  }
  const { runOperatorCommand } = await import('./cli/operator-commands.js');
  process.exitCode = await runOperatorCommand(config, print);
}

const argv = process.argv.slice(2);
main(argv).catch((error: unknown) => {
  const { line, exitCode } = explain(error, argv);
  process.stderr.write(`holdfast: ${line}\n`);
  if (argv.includes('--debug') && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  process.exit(exitCode);
});
