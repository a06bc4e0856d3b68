import { formatLocal, wallClockToInstant } from '../../../domain/time/zone.js';
import { zoneLabel } from '../../format/human-time.js';
import type { AuditEntry } from '../../../ports/audit.js';
import type { AuditFilter } from '../../../ports/store/audit.js';

/** The query parameters of the activity page and its exports, as the form names them. */
export const FILTER_FIELDS = [
  'person',
  'connection',
  'tool',
  'kind',
  'outcome',
  'error',
  'from',
  'to',
  'mentions',
] as const;
export type FilterField = (typeof FILTER_FIELDS)[number];

export const KINDS: readonly AuditEntry['kind'][] = ['read', 'write', 'approval', 'admin'];
export const OUTCOMES: readonly AuditEntry['outcome'][] = ['ok', 'error', 'input_required'];

/** The form's values as they will be shown again: what was asked, with times in the form's own format. */
export type FilterValues = Partial<Record<FilterField, string>>;

export type ParsedQuery =
  | {
      readonly ok: true;
      readonly filter: AuditFilter;
      readonly cursor: { before?: number; after?: number };
      readonly values: FilterValues;
    }
  | {
      readonly ok: false;
      readonly field: FilterField | 'page';
      readonly message: string;
      readonly values: FilterValues;
    };

class Invalid extends Error {
  constructor(
    readonly field: FilterField | 'page',
    message: string,
  ) {
    super(message);
  }
}

const CONTROL = /\p{Cc}/u;

function text(field: FilterField, label: string, value: string, max: number, shape?: RegExp): string {
  if (value.length > max) throw new Invalid(field, `${label}: at most ${max} characters.`);
  if (CONTROL.test(value) || (shape && !shape.test(value)))
    throw new Invalid(field, `${label}: “${value.slice(0, 60)}” is not a valid value.`);
  return value;
}

function oneOf<T extends string>(field: FilterField, label: string, value: string, allowed: readonly T[]): T {
  const found = allowed.find((a) => a === value);
  if (!found) throw new Invalid(field, `${label}: choose one of ${allowed.join(', ')}.`);
  return found;
}

const DAY_MS = 86_400_000;
const TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/**
 * A date or date-time as an instant: the viewer's wall clock unless it names an offset. A date
 * alone is midnight starting it for From, and midnight ending it for To, so "to" a date
 * includes that whole day.
 */
function instant(field: 'from' | 'to', label: string, value: string, timeZone: string): number {
  const m = TIME.exec(value);
  const bad = () =>
    new Invalid(
      field,
      `${label}: “${value.slice(0, 40)}” is not a date or time; use 2026-12-01 or 2026-12-01T09:30 (${zoneLabel(timeZone)} time).`,
    );
  if (!m) throw bad();
  const [, y, mo, d, h = '0', mi = '0', s = '0', ms = '0', zone] = m;
  const parts = [Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)] as const;
  const utc = Date.UTC(...parts, Number(ms.padEnd(3, '0')));
  const back = new Date(utc);
  // Date.UTC rolls 31 Feb over into March; a real date reads back the same.
  if (
    back.getUTCMonth() !== parts[1] ||
    back.getUTCDate() !== parts[2] ||
    parts[3] > 23 ||
    parts[4] > 59 ||
    parts[5] > 59
  )
    throw bad();
  const dayOnly = m[4] === undefined;
  const dayAfter = dayOnly && field === 'to' ? DAY_MS : 0;
  if (zone) {
    const offset =
      zone === 'Z' ? 0 : (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4)));
    return utc - offset * 60_000 + dayAfter;
  }
  // The wall clock in the viewer's zone: its day and minute, then the seconds within that minute.
  const epochDay = Math.floor(utc / DAY_MS) + dayAfter / DAY_MS;
  return wallClockToInstant(epochDay, parts[3] * 60 + parts[4], timeZone) + (utc % 60_000);
}

/** The instant as a datetime-local value on the viewer's wall clock, to the precision it needs. */
export function formTime(at: number, timeZone = 'UTC'): string {
  const local = formatLocal(at, timeZone).slice(0, 19);
  const ms = at % 1000;
  if (ms !== 0) return `${local}.${String(ms).padStart(3, '0')}`;
  return local.endsWith(':00') ? local.slice(0, 16) : local;
}

function cursor(value: string): number {
  if (!/^\d{1,15}$/.test(value) || Number(value) < 1)
    throw new Invalid('page', 'Page: not a page of this list.');
  return Number(value);
}

/** The filter and page a query asks for, or which field is wrong and why. Empty fields are no filter. */
export function parseActivityQuery(
  query: (name: string) => string | undefined,
  /** Where From and To are read, and shown back: the viewer's zone. */
  timeZone = 'UTC',
): ParsedQuery {
  const values: FilterValues = {};
  for (const field of FILTER_FIELDS) {
    const value = query(field)?.trim();
    if (value) values[field] = value;
  }
  try {
    const v = values;
    const filter: AuditFilter = {
      subject: v.person && text('person', 'Person', v.person, 100, /^[\w.:-]+$/),
      clientId: v.connection && text('connection', 'Connection', v.connection, 300),
      tool: v.tool && text('tool', 'Tool', v.tool, 64, /^[\w.:-]+$/),
      kind: v.kind ? oneOf('kind', 'Kind', v.kind, KINDS) : undefined,
      outcome: v.outcome ? oneOf('outcome', 'Outcome', v.outcome, OUTCOMES) : undefined,
      errorCode: v.error && text('error', 'Error code', v.error.toUpperCase(), 64, /^[A-Z][A-Z0-9_]*$/),
      from: v.from ? instant('from', 'From', v.from, timeZone) : undefined,
      to: v.to ? instant('to', 'To', v.to, timeZone) : undefined,
      mentions: v.mentions && text('mentions', 'Mentions', v.mentions, 200),
    };
    if (filter.from !== undefined && filter.to !== undefined && filter.to <= filter.from)
      throw new Invalid('to', 'To: must be later than From.');
    const before = query('before');
    const after = query('after');
    const shown: FilterValues = {
      ...values,
      ...(filter.errorCode ? { error: filter.errorCode } : {}),
      ...(filter.from !== undefined ? { from: formTime(filter.from, timeZone) } : {}),
      ...(filter.to !== undefined ? { to: formTime(filter.to, timeZone) } : {}),
    };
    return {
      ok: true,
      filter: Object.fromEntries(Object.entries(filter).filter(([, x]) => x !== undefined)),
      cursor: {
        ...(before ? { before: cursor(before) } : {}),
        ...(after ? { after: cursor(after) } : {}),
      },
      values: shown,
    };
  } catch (error) {
    if (!(error instanceof Invalid)) throw error;
    return { ok: false, field: error.field, message: error.message, values };
  }
}

/** The query string of a filter (and a page of it), for links that keep what was asked. */
export function filterQuery(values: FilterValues, page: { before?: number; after?: number } = {}): string {
  const params = new URLSearchParams();
  for (const field of FILTER_FIELDS) if (values[field]) params.set(field, values[field]);
  if (page.before !== undefined) params.set('before', String(page.before));
  if (page.after !== undefined) params.set('after', String(page.after));
  const query = params.toString();
  return query ? `?${query}` : '';
}
