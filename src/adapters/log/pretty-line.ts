/**
 * One log event as a person reads it in a terminal: the time (UTC), the level when it is not
 * info, the message, then each field as key=value (strings quoted only when they hold spaces).
 * It rewrites the JSON line pino made, so both formats carry the same fields.
 */
export function prettyLine(json: string): string {
  let event: Record<string, unknown>;
  try {
    event = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const { level, timestamp, message, ...fields } = event;
  const at = typeof timestamp === 'string' ? `${timestamp.slice(11, 19)}Z` : '';
  const label = level === 'info' ? '' : ` ${String(level).toUpperCase()}`;
  const rest = Object.entries(fields).map(([key, value]) => `${key}=${shown(value)}`);
  return `${at}${label} ${oneLine(String(message ?? ''))}${rest.length ? `  ${rest.join(' ')}` : ''}\n`;
}

// A message or value carrying a line break or a control character would forge a log line of its
// own (a client's declared name, an upstream's error text): such text is shown JSON-escaped.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const oneLine = (text: string) => (CONTROL.test(text) ? JSON.stringify(text) : text);

function shown(value: unknown): string {
  if (typeof value === 'string')
    return /[\s"=]/.test(value) || CONTROL.test(value) || value === '' ? JSON.stringify(value) : value;
  return JSON.stringify(value);
}
