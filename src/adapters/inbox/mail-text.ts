/**
 * Mail is written by strangers and read by agents: text from it is made well-formed and loses
 * the characters nobody sees but a model reads (controls, bidirectional overrides, zero-width
 * and tag characters) — the characters Holdfast refuses in an agent's own arguments. Ids must
 * not carry them at all.
 */

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
// C0 and C1 controls but tab, line feed and carriage return; zero-width, bidi and invisible
// operators; the byte-order mark; interlinear annotations; the tag characters (U+E0000–E007F).
const INVISIBLE =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;

/** Text as an agent may read it: well-formed, nothing invisible. */
export function readableText(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd').replace(INVISIBLE, '');
}

/** Whether an id or header value is already plain: what ids must be, as given. */
export function isPlain(text: string): boolean {
  return readableText(text) === text && !/[\t\r\n]/.test(text);
}
