/**
 * `import { createHoldfast } from 'holdfast'`: Holdfast inside a Node application, without MCP.
 * The types are those of src/main/embed-api.ts (built into dist/types by `npm run build`).
 */
import type { CreateHoldfast } from '../dist/types/main/embed-api.js';

export type * from '../dist/types/main/embed-api.js';
export { DomainError } from '../dist/types/domain/errors.js';
export declare const createHoldfast: CreateHoldfast;
