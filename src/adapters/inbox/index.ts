import type { IncomingMessage } from '../../app/inbox/ingest.js';

/**
 * The inbox adapter's face: mail in (parsed, sanitized) for the REST endpoint, and how the views
 * show it. mailparser and sanitize-html load with the first message, not with the server.
 */
export { HTML_RENDER_MODE } from './render-mode.js';

const incoming = () => import('./incoming.js');

/** A posted JSON message, checked field by field, its HTML sanitized (see incoming.ts). */
export async function incomingFromJson(body: unknown, raw: Uint8Array): Promise<IncomingMessage> {
  return (await incoming()).incomingFromJson(body, raw);
}

/** An .eml file, threaded by its own headers (see incoming.ts). */
export async function incomingFromEml(
  ...args: Parameters<Awaited<ReturnType<typeof incoming>>['incomingFromEml']>
): Promise<IncomingMessage> {
  return (await incoming()).incomingFromEml(...args);
}
