/**
 * How the inbox shows a message's HTML: sanitized, with nothing that runs and nothing that fetches.
 * No script, no handler, no style, no form control, no embedded document and no URL in any
 * attribute, so the page that shows it keeps a strict CSP and opening a message tells no sender it
 * was read.
 */
export const HTML_RENDER_MODE = 'SANITIZED_NO_EXTERNAL';
