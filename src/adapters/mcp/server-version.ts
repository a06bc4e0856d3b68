import { readFileSync } from 'node:fs';
import { packageFile } from '../files/package-files.js';

export const SERVER_NAME = 'holdfast';
/** The version in the package's package.json. */
export const SERVER_VERSION: string = (
  JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string }
).version;
