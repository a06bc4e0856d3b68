import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A Node.js binary of another major version, from tools/runtimes (installed from the npm
 * registry by `npm install`'s postinstall, never put on PATH). Throws one clear line if missing.
 */
export function nodeBinary(major: 22 | 24): string {
  const path = join(process.cwd(), `tools/runtimes/node_modules/node${major}/bin/node`);
  if (!existsSync(path))
    throw new Error(
      `Node ${major} is missing at ${path}: run \`npm install\` (its postinstall installs tools/runtimes).`,
    );
  return path;
}
