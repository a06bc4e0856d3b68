import { readFileSync } from 'node:fs';

export const SERVER_NAME = 'holdfast';
/** The version in package.json (dist/adapters/mcp/ and src/adapters/mcp/ are three levels down). */
export const SERVER_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
