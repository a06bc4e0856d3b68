/** How instants read for a person: weekday, date and local time in a named zone; spans; countdowns. */

const dayAndTime = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = dayAndTime.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    dayAndTime.set(timeZone, f);
  }
  return f;
}

/** The day ("Thu 3 Dec 2026") and the time ("09:00") in the zone, from parts (ICU versions punctuate differently). */
function dayAndTimeOf(instant: number, timeZone: string): { day: string; time: string } {
  const part: Record<string, string> = {};
  for (const { type, value } of formatter(timeZone).formatToParts(instant)) part[type] = value;
  return {
    day: `${part.weekday} ${part.day} ${part.month} ${part.year}`,
    time: `${part.hour}:${part.minute}`,
  };
}

/** "Thu 3 Dec 2026, 09:00" in the zone. */
export function localDateTime(instant: number, timeZone: string): string {
  const { day, time } = dayAndTimeOf(instant, timeZone);
  return `${day}, ${time}`;
}

/** "Thu 3 Dec 2026, 09:00–10:00" (the end's date is repeated only when it differs). */
export function localSpan(start: number, end: number, timeZone: string): string {
  const from = dayAndTimeOf(start, timeZone);
  const to = dayAndTimeOf(end, timeZone);
  return from.day === to.day
    ? `${from.day}, ${from.time}–${to.time}`
    : `${from.day}, ${from.time} – ${to.day}, ${to.time}`;
}

/** "09:00–10:00" in the zone, or "22:00 – Fri 4 Dec 2026, 01:00" when it ends on another day. */
export function clockSpan(start: number, end: number, timeZone: string): string {
  const from = dayAndTimeOf(start, timeZone);
  const to = dayAndTimeOf(end, timeZone);
  return from.day === to.day ? `${from.time}–${to.time}` : `${from.time} – ${to.day}, ${to.time}`;
}

/** "Thu 3 Dec 2026" in the zone. */
export function localDay(instant: number, timeZone: string): string {
  return dayAndTimeOf(instant, timeZone).day;
}

/** "45 min", "1 h 30 min", "2 d 3 h". */
export function duration(ms: number): string {
  const minutes = Math.round(Math.abs(ms) / 60_000);
  if (minutes < 1) return `${Math.round(Math.abs(ms) / 1000)} s`;
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/** "in 8 min" or "4 min ago". */
export function relative(target: number, now: number): string {
  return target >= now ? `in ${duration(target - now)}` : `${duration(now - target)} ago`;
}

/** A plain-text table with a header row, columns padded to fit. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

/** A zone as a person names it: "Asia/Shanghai" -> "Shanghai", "America/Los_Angeles" -> "Los Angeles". */
export function zoneLabel(timeZone: string): string {
  const city = timeZone.split('/').pop() ?? timeZone;
  return city.replace(/_/g, ' ');
}

/** "Thu 3 Dec 2026, 08:00–09:00 (Shanghai)": a span with the zone it is read in. */
export function zonedSpan(start: number, end: number, timeZone: string): string {
  return `${localSpan(start, end, timeZone)} (${zoneLabel(timeZone)})`;
}

/** "Thu 3 Dec 2026, 14:05 (Shanghai)": an instant with the zone it is read in. */
export function zonedDateTime(instant: number, timeZone: string): string {
  return `${localDateTime(instant, timeZone)} (${zoneLabel(timeZone)})`;
}
