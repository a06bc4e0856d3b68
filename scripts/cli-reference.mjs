// Prints every help page of the CLI; with --write, writes them into docs/cli.md's reference
// block instead (test/e2e/cli.test.ts fails when the two drift apart). Needs a build:
// npm run cli-reference [-- --write].
import { readFileSync, writeFileSync } from 'node:fs';
import { cliReference } from '../dist/main/cli/help.js';

const DOC = 'docs/cli.md';
const reference = cliReference().trimEnd();
if (!process.argv.includes('--write')) {
  process.stdout.write(`${reference}\n`);
} else {
  const doc = readFileSync(DOC, 'utf8');
  const start = doc.indexOf('```text\nUsage: holdfast <command> [options]');
  const end = doc.indexOf('```\n', start + 8);
  if (start < 0 || end < 0) throw new Error(`${DOC} has no CLI reference block to replace`);
  writeFileSync(DOC, `${doc.slice(0, start)}\`\`\`text\n${reference}\n${doc.slice(end)}`);
  process.stdout.write(`${DOC}: CLI reference updated\n`);
}
