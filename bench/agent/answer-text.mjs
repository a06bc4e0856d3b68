// Reading Holdfast's answers as a model sees them: the text content only (never
// structuredContent). Every reader names what it looks for in the text and returns null when
// the text does not say it, so a change in the answers shows up as a failed task, not a crash.

/**
 * `error CODE from tool: …` → CODE; a hotel-ops contract answer (its JSON envelope first) with
 * `"success":false` → its `error.code`; null for an ok answer.
 */
export const errorCode = (text) =>
  /^error (\S+) from /.exec(text)?.[1] ?? /^\{"success":false,.*?"code":"([A-Z_]+)"/.exec(text)?.[1] ?? null;

/** The recovery sentence every error carries. */
export const recovery = (text) => /recovery: (.+)$/m.exec(text)?.[1] ?? null;

/** `key: value` anywhere in the answer (the first such line). */
export const field = (text, key) => new RegExp(`^\\s*${key}: (\\S+)`, 'm').exec(text)?.[1] ?? null;

/** list_calendars: each listed calendar's id and name. */
export function calendarsListed(text) {
  // A name is quoted unless it is a plain token (`name: Studio`).
  const listed = /^\s*- id: (cal_\S+)\n\s+name: (?:"([^"]*)"|(\S+))$/gm;
  return [...text.matchAll(listed)].map(([, id, quoted, plain]) => ({ id, name: quoted ?? plain }));
}

/**
 * find_slots: every start it lists, as an exact instant. Days read
 * `2026-12-07 Mon +08:00 (…): 09:00 09:15`, each time local to the offset given on its line.
 */
export function slotStarts(text) {
  const starts = [];
  const day = /^(\d{4}-\d\d-\d\d) \w{3} ([+-]\d\d:\d\d)(?: \([^)]*\))?: ((?:\d\d:\d\d ?)+)$/gm;
  for (const [, date, offset, times] of text.matchAll(day))
    for (const time of times.trim().split(' ')) starts.push(`${date}T${time}:00${offset}`);
  return starts;
}

/** `ok hold_slot: booking bk_… · HF-… · HELD · version 1 · …` → the booking as the summary says it. */
export function bookingSummary(text) {
  const match = /^ok \S+: booking (bk_\S+) · (\S+) · (\w+) · version (\d+)/.exec(text);
  return match && { id: match[1], reference: match[2], status: match[3], version: Number(match[4]) };
}

/** A refusal's alternatives: `- start: …Z, end: …Z, …, reserved: no` (those not reserved). */
export function alternatives(text) {
  return [...text.matchAll(/^\s*- start: (\S+), end: (\S+),.*reserved: (yes|no)$/gm)]
    .filter(([, , , reserved]) => reserved === 'no')
    .map(([, start, end]) => ({ start, end }));
}

/** list_bookings: each listed booking (`- id: bk_…` with its `reference:` and `status:` lines). */
export function bookingsListed(text) {
  return text
    .split(/^\s*- id: /m)
    .slice(1)
    .map((item) => ({
      id: /^(bk_\S+)/.exec(item)?.[1],
      reference: /^\s*reference: (\S+)/m.exec(item)?.[1],
      status: /^\s*status: (\S+)/m.exec(item)?.[1],
    }))
    .filter((booking) => booking.id);
}
