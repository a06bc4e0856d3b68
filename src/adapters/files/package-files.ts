import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Holdfast's own files (assets, package.json, the compiled writer thread) by their path in the
 * package. Code runs from three places — `src/` under the tests, `dist/` as tsc writes it, and the
 * bundle in `dist/bin/` — so a path relative to the running module would differ in each; the
 * nearest folder above it that holds a package.json is the package in all three.
 */
let root: string | undefined;

export function packageFile(path: string): string {
  root ??= packageRootAbove(dirname(fileURLToPath(import.meta.url)));
  return join(root, path);
}

function packageRootAbove(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}
