/**
 * What the audit trail shows of a call's arguments. Built by allowlist: fields known to carry
 * no personal data are kept (bounded); everything else — customer details, labels, names,
 * free text, cursors, anything new — is replaced by a keyed digest. A new field therefore
 * starts out hidden, never exposed.
 */

const ID = /^(cal|bk|op)_[A-Za-z0-9_-]{6,40}$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;
const WORD = /^[A-Za-z_]{1,32}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const CLOCK = /^\d{2}:\d{2}$/;

/**
 * Fields kept as given — but only when their value has the shape the field promises, so a
 * caller cannot smuggle personal data into the trail through an id or a time zone.
 */
const SHAPES: Record<string, (value: unknown) => boolean> = {
  calendarIds: (v) => typeof v === 'string' && ID.test(v),
  calendarId: (v) => typeof v === 'string' && ID.test(v),
  bookingId: (v) => typeof v === 'string' && ID.test(v),
  start: (v) => typeof v === 'string' && INSTANT.test(v),
  end: (v) => typeof v === 'string' && INSTANT.test(v),
  from: (v) => typeof v === 'string' && INSTANT.test(v),
  to: (v) => typeof v === 'string' && INSTANT.test(v),
  approvedAt: (v) => typeof v === 'string' && INSTANT.test(v),
  durationMinutes: Number.isInteger,
  stepMinutes: Number.isInteger,
  limit: Number.isInteger,
  expectedVersion: Number.isInteger,
  idempotencyKey: (v) => typeof v === 'string' && UUID.test(v),
  approvalId: (v) => typeof v === 'string' && UUID.test(v),
  action: (v) => typeof v === 'string' && WORD.test(v),
  status: (v) => typeof v === 'string' && WORD.test(v),
  decision: (v) => typeof v === 'string' && WORD.test(v),
  timeZone: (v) =>
    typeof v === 'string' && /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/.test(v) && v.length <= 64,
  intentHash: (v) => typeof v === 'string' && /^sha256:[0-9a-f]{64}$/.test(v),
  amount: (v) => typeof v === 'string' && /^\d{1,12}(\.\d{1,4})?$/.test(v),
  currency: (v) => typeof v === 'string' && /^[A-Z]{3}$/.test(v),
  verb: (v) => typeof v === 'string' && WORD.test(v),
  // bookings-mcp's (seed 001) arguments: a customer's number, a date and its half-hour slots, a tool's name.
  customerId: Number.isInteger,
  id: Number.isInteger,
  date: (v) => typeof v === 'string' && DATE.test(v),
  time: (v) => typeof v === 'string' && CLOCK.test(v),
  times: (v) => typeof v === 'string' && CLOCK.test(v),
  tool: (v) => typeof v === 'string' && WORD.test(v),
};
// Looked up in a Map: a caller's key such as `valueOf` must not find Object.prototype's method.
const PLAIN = new Map(Object.entries(SHAPES));

/** Objects whose own fields go through the same allowlist. */
const NESTED = new Set(['approval', 'humanApproval', 'price', 'args']);

/** Known customer fields: the preview says which were given, never their values. */
const CUSTOMER_FIELDS = ['name', 'email', 'phone', 'notes', 'locale', 'extra'];

const MAX_ITEMS = 10;

type Digest = (value: unknown) => string;

/** The value if it has its field's shape (a list: item by item, at most ten), else its digest. */
function plain(value: unknown, shaped: (value: unknown) => boolean, digest: Digest): unknown {
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((v) => (shaped(v) ? v : digest(v)));
    return value.length > MAX_ITEMS ? [...items, `… ${value.length - MAX_ITEMS} more`] : items;
  }
  return shaped(value) ? value : digest(value);
}

function objectPreview(
  value: Record<string, unknown>,
  digest: Digest,
  depth: number,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field === undefined) continue;
    const shaped = PLAIN.get(key);
    if (shaped) out[key] = plain(field, shaped, digest);
    else if (key === 'customer' && isRecord(field))
      out[key] = { fields: CUSTOMER_FIELDS.filter((f) => Object.hasOwn(field, f)), digest: digest(field) };
    else if (NESTED.has(key) && isRecord(field) && depth < 2)
      out[key] = objectPreview(field, digest, depth + 1);
    else out[key] = digest(field);
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The preview of already validated arguments, as the JSON text the trail stores. */
export function previewOf(input: unknown, digest: Digest): string {
  return JSON.stringify(isRecord(input) ? objectPreview(input, digest, 0) : { value: digest(input) });
}

/**
 * The preview of refused arguments: only the path of the field that was wrong, each part of it a
 * field name the tool's schema knows — anything else (a key the caller made up, which may be
 * personal data) becomes `*`.
 */
export function rejectedPreview(field: string, known: ReadonlySet<string>): string {
  const path = field
    .split(/(\[\d+\])|\./)
    .filter((part): part is string => part !== undefined && part !== '')
    .map((part) => (/^\[\d+\]$/.test(part) || known.has(part) || part === '(arguments)' ? part : '*'))
    .join('.')
    .replace(/\.\[/g, '[');
  return JSON.stringify({ rejected: path });
}
