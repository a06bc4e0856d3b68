// Prints every help page of the CLI; with --readme, writes them into README.md's "Command line"
// section instead (test/e2e/cli.test.ts fails when the two drift apart). Needs a build:
// npm run cli-reference [-- --readme].
import { readFileSync, writeFileSync } from 'node:fs';
import { cliReference } from '../dist/main/cli-help.js';

const reference = cliReference().trimEnd();
if (!process.argv.includes('--readme')) {
  process.stdout.write(`${reference}\n`);
} else {
  const readme = readFileSync('README.md', 'utf8');
  const start = readme.indexOf('```text\nUsage: holdfast <command> [options]');
  const end = readme.indexOf('```\n', start + 8);
  if (start < 0 || end < 0) throw new Error('README.md has no CLI reference block to replace');
  writeFileSync('README.md', `${readme.slice(0, start)}\`\`\`text\n${reference}\n${readme.slice(end)}`);
  process.stdout.write('README.md: CLI reference updated\n');
}
