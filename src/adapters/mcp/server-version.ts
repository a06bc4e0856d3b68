import { readFileSync } from 'node:fs';
import { packageFile } from '../files/package-files.js';

export const SERVER_NAME = 'holdfast';
/** The version in the package's package.json. */
const manifest = JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as {
  version: string;
  mcpName: string;
};
export const SERVER_VERSION: string = manifest.version;
/** The name in the MCP Registry (package.json's mcpName): the Server Card's and server.json's. */
export const REGISTRY_NAME: string = manifest.mcpName;
