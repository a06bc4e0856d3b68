export { jsonLogger } from './json-logger.js';
export type { Logger } from './json-logger.js';
export { silentLogger } from './logger.js';
