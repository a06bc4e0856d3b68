// Prints every help page of the CLI, as the README's "Command line" section carries it
// (test/e2e/cli.test.ts fails when the two drift apart). Needs a build: npm run cli-reference.
import { cliReference } from '../dist/main/cli-help.js';

process.stdout.write(`${cliReference()}\n`);
