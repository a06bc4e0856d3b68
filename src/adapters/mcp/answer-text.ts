/**
 * The text content a model reads. The structured content keeps every field; the text says the
 * same things once: a one-line summary first, then the data as indented `key: value` lines,
 * with nulls and empties left out, slots grouped by day with local times in one zone and the
 * other zones' offsets once per day, and a booking's time in each zone on one line.
 *
 * Strings a caller or customer wrote are quoted as JSON unless they are plainly a token (id,
 * instant, e-mail, URL), so no value can open a line of its own and pass for a field.
 */

interface Envelope {
  readonly ok: boolean;
  readonly data?: unknown;
  readonly error?: {
    readonly code: string;
    readonly message: string;
    readonly retryable: boolean;
    readonly details: Record<string, unknown>;
    readonly recovery: { readonly action: string };
  };
  readonly meta: Record<string, unknown>;
}

type Json = Record<string, unknown>;

const PLAIN = /^[\w.:+\-/@#=?&%~]+$/;

/** Text this module composed from checked parts (not a caller's string): shown as it is. */
class Composed {
  constructor(readonly text: string) {}
}

/**
 * JSON.stringify leaves line and paragraph separators, NEL and the other C1 controls, and the
 * bidirectional overrides as they are: a reader splitting on Unicode line breaks would see new
 * lines, a terminal might act on them. Escape them too.
 */
const UNSAFE = /[\u0080-\u009f\u2028-\u202e\u2066-\u2069]/g;
const quote = (text: string) =>
  JSON.stringify(text).replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** A field name as written: a caller's map key (customer extras) is quoted unless plain. */
const keyText = (key: string) => (PLAIN.test(key) ? key : quote(key));

function scalar(value: unknown): string {
  if (value instanceof Composed) return value.text;
  if (typeof value === 'string') return PLAIN.test(value) ? value : quote(value);
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
}

function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Composed);

/** `2026-12-02T09:00:00+08:00` → its parts; the form formatLocal writes. */
function localParts(local: string) {
  const date = local.slice(0, 10);
  const weekday = new Date(`${date}T00:00:00Z`).toUTCString().slice(0, 3);
  return { date, weekday, time: local.slice(11, 16), offset: local.slice(19) || 'Z' };
}

/** A booking's span per zone on one line: `Asia/Shanghai Wed 2026-12-02 09:00–10:00 +08:00`. */
function spanLine(form: { timeZone: string; start: string; end: string }): string {
  const start = localParts(form.start);
  const end = localParts(form.end);
  const endPart = end.date === start.date ? end.time : `${end.weekday} ${end.date} ${end.time}`;
  const offsets = end.offset === start.offset ? start.offset : `${start.offset}/${end.offset}`;
  return `${form.timeZone} ${start.weekday} ${start.date} ${start.time}–${endPart} ${offsets}`;
}

/** Fields that repeat another: a booking's calendarIds are its calendars' ids. */
function condense(value: Json): Json {
  const out: Json = { ...value };
  if (Array.isArray(out.calendars) && Array.isArray(out.calendarIds)) delete out.calendarIds;
  if (Array.isArray(out.local) && typeof out.start === 'string') {
    out.local = (out.local as { timeZone: string; start: string; end: string }[]).map(
      (form) => new Composed(spanLine(form)),
    );
  }
  return out;
}

function objectLines(value: Json, indent: string, out: string[]): void {
  for (const [key, field] of Object.entries(condense(value))) {
    if (isEmpty(field)) continue;
    if (Array.isArray(field)) arrayLines(keyText(key), field, indent, out);
    else if (isObject(field)) {
      out.push(`${indent}${keyText(key)}:`);
      objectLines(field, `${indent}  `, out);
    } else out.push(`${indent}${keyText(key)}: ${scalar(field)}`);
  }
}

const HHMM = /^\d\d:\d\d$/;

/** Opening hours `[{start: "09:00", end: "17:00"}]` → `09:00–17:00` (the times are checked, not a caller's text). */
function asWindow(item: unknown): Composed | null {
  if (!isObject(item) || Object.keys(item).length !== 2) return null;
  const { start, end } = item;
  return typeof start === 'string' && typeof end === 'string' && HHMM.test(start) && HHMM.test(end)
    ? new Composed(`${start}–${end}`)
    : null;
}

/** An object of scalars only, on one line: `id: cal_1, name: "Jade Room", timeZone: UTC`. */
function flatLine(item: Json): string | null {
  const fields = Object.entries(item).filter(([, v]) => !isEmpty(v));
  if (fields.some(([, v]) => typeof v === 'object' && !(v instanceof Composed))) return null;
  return fields.map(([k, v]) => `${keyText(k)}: ${scalar(v)}`).join(', ');
}

function arrayLines(key: string, items: unknown[], indent: string, out: string[]): void {
  const windows = items.map(asWindow);
  if (items.length > 0 && windows.every((w) => w !== null)) items = windows;
  if (items.every((item) => !isObject(item) && !Array.isArray(item))) {
    out.push(`${indent}${key}: ${items.map(scalar).join(', ')}`);
    return;
  }
  out.push(`${indent}${key}:`);
  for (const item of items) {
    const block: string[] = [];
    const flat = isObject(item) ? flatLine(condense(item)) : null;
    if (flat !== null) block.push(flat);
    else if (isObject(item)) objectLines(item, `${indent}    `, block);
    else block.push(`${indent}    ${scalar(item)}`);
    if (block.length === 0) continue;
    block[0] = `${indent}  - ${block[0]!.trimStart()}`;
    out.push(...block);
  }
}

interface SlotWire {
  readonly start: string;
  readonly end: string;
  readonly local: Record<string, string>;
}

/**
 * Slots by day in the first calendar's zone: `2026-12-02 Wed +08:00 (Europe/Berlin +01:00): 09:00
 * 09:30`. A new line starts where the date or any zone's offset changes, so every time listed
 * turns into its exact instant as date + time + offset.
 */
function slotLines(slots: readonly SlotWire[], out: string[]): void {
  const zones = Object.keys(slots[0]?.local ?? {});
  const [primary, ...others] = zones;
  if (primary === undefined) return;
  out.push(
    `times: local to ${primary}; a start is its date, time and offset (2026-01-05 09:00 +01:00 = 2026-01-05T09:00:00+01:00)`,
  );
  let key = '';
  let line = '';
  for (const slot of slots) {
    const here = localParts(slot.local[primary]!);
    const elsewhere = others.map((zone) => `${zone} ${localParts(slot.local[zone]!).offset}`).join(', ');
    const next = `${here.date} ${here.weekday} ${here.offset}${elsewhere ? ` (${elsewhere})` : ''}:`;
    if (next !== key) {
      if (line) out.push(line);
      key = next;
      line = next;
    }
    line += ` ${here.time}`;
  }
  out.push(line);
}

/** A search by need: the slots of each calendar under a line naming it, calendars in the order searched. */
function needSlotLines(data: Json, out: string[]): void {
  const slots = data.slots as (SlotWire & { calendarId: string })[];
  for (const calendar of data.calendars as Json[]) {
    const own = slots.filter((slot) => slot.calendarId === calendar.id);
    if (own.length === 0) continue;
    out.push(`calendar ${scalar(calendar.id)} ${scalar(calendar.name)}:`);
    slotLines(own, out);
  }
}

function slotsSummary(data: Json): string {
  const slots = data.slots as SlotWire[];
  const first = slots[0];
  const minutes = first ? Math.round((Date.parse(first.end) - Date.parse(first.start)) / 60_000) : 0;
  const shown = first
    ? `${slots.length} of ${String(data.total)} free starts, ${minutes} min each`
    : 'no free starts';
  const calendars = Array.isArray(data.calendars)
    ? `${shown} on ${data.calendars.length} of ${String(data.calendarsMatched)} matching calendars`
    : shown;
  return data.nextCursor ? `${calendars}; more with cursor ${scalar(data.nextCursor)}` : calendars;
}

function bookingSummary(booking: Json): string {
  const parts = [
    `booking ${scalar(booking.id)}`,
    String(booking.status),
    `version ${String(booking.version)}`,
  ];
  if (booking.reference) parts.splice(1, 0, scalar(booking.reference));
  if (booking.status === 'HELD' && booking.expiresAt) parts.push(`hold expires ${scalar(booking.expiresAt)}`);
  return parts.join(' · ');
}

/** The booking's fields its summary line already says. */
function withoutSummarized(booking: Json): Json {
  const { id: _id, reference: _reference, status: _status, version: _version, ...rest } = booking;
  return booking.status === 'HELD' ? { ...rest, expiresAt: null } : rest;
}

/** What the answer is, in one line. */
function summaryOf(data: Json): string {
  if (Array.isArray(data.slots)) return slotsSummary(data);
  if (isObject(data.booking)) return bookingSummary(data.booking);
  if (isObject(data.calendar)) return `calendar ${scalar(data.calendar.id)} ${scalar(data.calendar.name)}`;
  const list = Object.entries(data).find(([, value]) => Array.isArray(value));
  if (list) {
    const total = typeof data.total === 'number' ? ` of ${data.total}` : '';
    const more = data.nextCursor ? `; more with cursor ${scalar(data.nextCursor)}` : '';
    return `${(list[1] as unknown[]).length}${total} ${list[0]}${more}`;
  }
  return 'done';
}

function metaLine(meta: Json): string {
  return `meta: trace ${scalar(meta.traceId)} · operation ${scalar(meta.operationId)} · server time ${scalar(meta.serverTime)}`;
}

export function answerText(tool: string, envelope: Envelope): string {
  const out: string[] = [];
  if (!envelope.ok && envelope.error) {
    const { code, message, retryable, details, recovery } = envelope.error;
    out.push(`error ${code} from ${tool}: ${scalar(message)}`);
    out.push(`retryable: ${scalar(retryable)} · recovery: ${recovery.action}`);
    if (!isEmpty(details)) {
      out.push('details:');
      objectLines(details, '  ', out);
    }
  } else {
    const data = (envelope.data ?? {}) as Json;
    const replay = envelope.meta.idempotentReplay ? ' (replay of an earlier call: nothing new was done)' : '';
    out.push(`ok ${tool}: ${summaryOf(data)}${replay}`);
    if (Array.isArray(data.slots) && Array.isArray(data.calendars)) needSlotLines(data, out);
    else if (Array.isArray(data.slots)) slotLines(data.slots as SlotWire[], out);
    else if (isObject(data.booking))
      objectLines({ ...data, booking: withoutSummarized(data.booking) }, '', out);
    else objectLines(data, '', out);
  }
  out.push(metaLine(envelope.meta));
  return out.join('\n');
}
