/**
 * What the audit trail shows of a call's arguments. Built by allowlist: fields known to carry
 * no personal data are kept (bounded); everything else — customer details, labels, names,
 * free text, cursors, anything new — is replaced by a keyed digest. A new field therefore
 * starts out hidden, never exposed.
 */

/** Scalar (or list of scalar) fields kept as given. */
const PLAIN = new Set([
  'calendarIds',
  'calendarId',
  'bookingId',
  'start',
  'end',
  'from',
  'to',
  'durationMinutes',
  'stepMinutes',
  'limit',
  'expectedVersion',
  'idempotencyKey',
  'action',
  'approvalId',
  'status',
  'timeZone',
  'decision',
  'approvedAt',
  'intentHash',
  'amount',
  'currency',
]);

/** Objects whose own fields go through the same allowlist. */
const NESTED = new Set(['approval', 'humanApproval', 'price']);

/** Known customer fields: the preview says which were given, never their values. */
const CUSTOMER_FIELDS = ['name', 'email', 'phone', 'notes', 'locale', 'extra'];

const MAX_TEXT = 120;
const MAX_ITEMS = 10;

type Digest = (value: unknown) => string;

function scalar(value: unknown): unknown {
  if (typeof value === 'string') return value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT)}…` : value;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  return undefined;
}

function plain(value: unknown, digest: Digest): unknown {
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((v) => scalar(v) ?? digest(v));
    return value.length > MAX_ITEMS ? [...items, `… ${value.length - MAX_ITEMS} more`] : items;
  }
  return scalar(value) ?? digest(value);
}

function objectPreview(
  value: Record<string, unknown>,
  digest: Digest,
  depth: number,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field === undefined) continue;
    if (PLAIN.has(key)) out[key] = plain(field, digest);
    else if (key === 'customer' && isRecord(field))
      out[key] = { fields: CUSTOMER_FIELDS.filter((f) => f in field), digest: digest(field) };
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

/** The preview of arguments refused at the edge: only the (printable, bounded) field that was wrong. */
export function rejectedPreview(field: string): string {
  return JSON.stringify({ rejected: field });
}
