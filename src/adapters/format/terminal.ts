/** Control characters (but tab and line breaks) and bidi controls, which a terminal acts on. */
function unsafe(code: number): boolean {
  return (
    (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) ||
    (code >= 0x7f && code <= 0x9f) ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

/**
 * Text stored before the edge rule existed may hold control or bidi characters: shown on a
 * terminal, each becomes U+FFFD, so nothing printed can move the cursor or reorder lines.
 */
export function terminalSafe(text: string): string {
  let out = '';
  for (const char of text) out += unsafe(char.charCodeAt(0)) ? '\ufffd' : char;
  return out;
}
