/** The inbox adapter's face: mail in (parsed, sanitized) for the REST endpoint, the CLI and the views. */
export { DEFAULT_CHANNEL, DEFAULT_PROVIDER, incomingFromEml, incomingFromJson } from './incoming.js';
export { HTML_RENDER_MODE, sanitizeMailHtml } from './sanitize-mail.js';
