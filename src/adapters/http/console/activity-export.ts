import type { ActivityRow } from '../../../app/console/activity.js';
import type { AuditFilter } from '../../../ports/store/audit.js';

/** The CSV's columns, in order; the header row names them. */
const CSV_COLUMNS = [
  'seq',
  'time_utc',
  'person',
  'subject',
  'connection',
  'transport',
  'tool',
  'kind',
  'outcome',
  'error_code',
  'blocked_reason',
  'duration_ms',
  'trace_id',
  'operation_id',
  'arguments_digest',
  'preview',
] as const;

/**
 * One CSV field, always quoted (quotes doubled). A value a spreadsheet would run as a formula —
 * one starting with = + - @, a tab or a carriage return — gets a leading apostrophe (OWASP's
 * advice), so an email or a name chosen by someone else cannot become a formula.
 */
export function csvField(value: string | number | null): string {
  const text = value === null ? '' : String(value);
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return `"${safe.replace(/"/g, '""')}"`;
}

const csvLine = (cells: readonly (string | number | null)[]) => `${cells.map(csvField).join(',')}\r\n`;

export const csvHeader = (): string => csvLine(CSV_COLUMNS);

export function csvRows(rows: readonly ActivityRow[]): string {
  return rows
    .map(({ record: r, email }) =>
      csvLine([
        r.seq,
        new Date(r.at).toISOString(),
        email,
        r.subject,
        r.clientId,
        r.transport,
        r.tool,
        r.kind,
        r.outcome,
        r.errorCode,
        r.blockedReason,
        r.durationMs,
        r.traceId,
        r.operationId,
        r.argumentsDigest,
        r.preview,
      ]),
    )
    .join('');
}

/** A record as the JSON export holds it: the preview as the JSON it is, times as ISO and ms. */
function jsonRecord({ record: r, email }: ActivityRow) {
  let preview: unknown = r.preview;
  try {
    preview = JSON.parse(r.preview);
  } catch {
    // Kept as the text it is: a preview is JSON, but an export must not fail on one that is not.
  }
  return {
    seq: r.seq,
    at: new Date(r.at).toISOString(),
    atMs: r.at,
    person: email,
    subject: r.subject,
    connection: r.clientId,
    transport: r.transport,
    tool: r.tool,
    kind: r.kind,
    outcome: r.outcome,
    errorCode: r.errorCode,
    blockedReason: r.blockedReason,
    durationMs: r.durationMs,
    traceId: r.traceId,
    operationId: r.operationId,
    argumentsDigest: r.argumentsDigest,
    preview,
    hash: r.hash,
    prevHash: r.prevHash,
  };
}

/**
 * The JSON export in pieces, so it streams: an object that says what was asked, then the
 * records, then whether the cap cut them short.
 */
export const jsonExport = {
  head: (meta: { tenantId: string; exportedAt: number; filter: AuditFilter; cap: number }) =>
    `{"tenant":${JSON.stringify(meta.tenantId)},"exportedAt":${JSON.stringify(new Date(meta.exportedAt).toISOString())},` +
    `"filter":${JSON.stringify(meta.filter)},"cap":${meta.cap},"records":[\n`,
  rows: (rows: readonly ActivityRow[], first: boolean) =>
    rows.map((row, i) => `${first && i === 0 ? '' : ',\n'}${JSON.stringify(jsonRecord(row))}`).join(''),
  tail: (truncated: boolean) => `\n],"truncated":${truncated}}\n`,
};
