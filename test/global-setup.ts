import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** End-to-end tests spawn the built entry point; build it when a bare `vitest` run finds none. */
export default function setup(): void {
  if (!existsSync('dist/main/cli.js'))
    execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { stdio: 'inherit' });
}
