import sanitizeHtml from 'sanitize-html';
import { HTML_RENDER_MODE } from './render-mode.js';

export { HTML_RENDER_MODE };

const words = (list: string): string[] => list.trim().split(/\s+/);

/** Formatting and structure only: nothing here loads, runs or submits anything. */
const ALLOWED_TAGS = words(`
  p br div span b strong i em u s small sup sub center blockquote pre code hr a
  ul ol li h1 h2 h3 h4 h5 h6 table thead tbody tfoot tr th td caption
`);

/**
 * Dropped with everything inside. Any other tag outside the allowlist (`<font>`, `<html>`, `<body>`,
 * Outlook's `<o:p>`) loses only its tag, so its text still reads. `<head>` and `<form>` are in that
 * second group on purpose: the parser does not close a `<head>` or `<form>` left open, so dropping
 * their content would drop the rest of the message; everything dangerous inside them is listed here.
 */
const DROPPED_WITH_CONTENT = words(`
  script style noscript title template meta link base
  iframe frame frameset noframes object embed applet param svg math
  input button select option datalist textarea
  img picture video audio source track canvas map area xmp noembed plaintext
`);

/**
 * Each attribute kept and the only values it may have: words and small numbers, so no value can
 * carry a URL, a scheme or CSS. (`title` is left out on purpose: it is free text, and free text is
 * where a URL hides.)
 */
const ATTRIBUTE_VALUES: Record<string, RegExp> = {
  dir: /^(ltr|rtl|auto)$/i,
  lang: /^[a-z]{1,8}(-[a-z0-9]{1,8})*$/i,
  align: /^(left|right|center|justify)$/i,
  valign: /^(top|middle|bottom|baseline)$/i,
  colspan: /^\d{1,3}$/,
  rowspan: /^\d{1,3}$/,
};

/** Drops every attribute whose value is not one of the harmless shapes above. */
function keepHarmlessValues(tagName: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Tag {
  const kept: sanitizeHtml.Attributes = {};
  for (const [name, value] of Object.entries(attribs)) {
    const key = name.toLowerCase();
    if (ATTRIBUTE_VALUES[key]?.test(value.trim())) kept[key] = value.trim();
  }
  return { tagName, attribs: kept };
}

const CELL_ATTRIBUTES = ['colspan', 'rowspan', 'valign'];

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: ALLOWED_TAGS,
  // Names are checked here and values in keepHarmlessValues: two walls, either one enough.
  allowedAttributes: {
    '*': ['dir', 'lang', 'align'],
    td: CELL_ATTRIBUTES,
    th: CELL_ATTRIBUTES,
    tr: ['valign'],
  },
  transformTags: { '*': keepHarmlessValues },
  // A disallowed tag is dropped and its text kept, except for the tags whose content is the danger.
  disallowedTagsMode: 'discard',
  nonTextTags: DROPPED_WITH_CONTENT,
  // No URL anywhere: no scheme, not even a protocol-relative `//host`.
  allowedSchemes: [],
  allowedSchemesByTag: {},
  allowProtocolRelative: false,
  // Style attributes are never kept, so there is no CSS to parse.
  parseStyleAttributes: false,
  // Deeper than any real layout table: bounds the DOM a hostile message can make a browser build.
  nestingLimit: 64,
};

/**
 * What the parser is given at most. Its work grows with the square of the tags left open (each
 * one is put at the front of its stack), so a mail of nothing but `<b>` could stall the server
 * for minutes; real mail, newsletters included, stays far below both bounds.
 */
export const MAX_HTML_CHARS = 1_000_000;
export const MAX_HTML_TAGS = 10_000;

function tagsIn(html: string): number {
  let count = 0;
  for (let i = html.indexOf('<'); i !== -1 && count <= MAX_HTML_TAGS; i = html.indexOf('<', i + 1)) count++;
  return count;
}

/**
 * The message's HTML with only formatting left. Comments go too (Outlook's `<!--[if mso]>` blocks
 * with them); text is kept as text, escaped. Null for HTML beyond the bounds: such a message
 * keeps its plain text only, and the parser never sees it.
 */
export function sanitizeMailHtml(html: string): string | null {
  if (html.length > MAX_HTML_CHARS || tagsIn(html) > MAX_HTML_TAGS) return null;
  return sanitizeHtml(html, OPTIONS);
}

/** The text of bounded HTML (for mail that has no text part); '' beyond the bounds. */
export function textOfMailHtml(html: string): string {
  if (html.length > MAX_HTML_CHARS || tagsIn(html) > MAX_HTML_TAGS) return '';
  return sanitizeHtml(html.replace(/<(br|\/p|\/div|\/tr|\/li|\/h\d)\b[^>]*>/gi, '$&\n'), {
    allowedTags: [],
    allowedAttributes: {},
    nonTextTags: DROPPED_WITH_CONTENT,
  })
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
