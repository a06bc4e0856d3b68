import type {
  DateOverride,
  TimeWindow,
  Weekday,
  WeeklyHours,
} from '../../../domain/availability/availability.js';
import { weekdays } from '../../../domain/availability/availability.js';
import type { Money } from '../../../domain/booking/money.js';
import { localDay } from '../../format/human-time.js';

/** Opening hours as a person reads them: "Mon–Fri 09:00–17:00 · Sat 10:00–14:00 · Sun closed". */

export const DAY_NAMES: Record<Weekday, string> = {
  mon: 'Monday',
  tue: 'Tuesday',
  wed: 'Wednesday',
  thu: 'Thursday',
  fri: 'Friday',
  sat: 'Saturday',
  sun: 'Sunday',
};

const short = (day: Weekday) => DAY_NAMES[day].slice(0, 3);

/** "09:00–12:00, 13:00–17:00"; "all day"; "closed". */
export function windowsInWords(windows: readonly TimeWindow[] | undefined): string {
  if (!windows || windows.length === 0) return 'closed';
  return [...windows]
    .sort((a, b) => a.start.localeCompare(b.start))
    .map((w) => (w.start === '00:00' && w.end === '24:00' ? 'all day' : `${w.start}–${w.end}`))
    .join(', ');
}

/** Runs of neighbouring days with the same hours, each said once: ["Mon–Fri 09:00–17:00", "Sat–Sun closed"]. */
export function weekRuns(weekly: WeeklyHours): string[] {
  const words = weekdays.map((day) => windowsInWords(weekly[day]));
  if (words.every((w) => w === 'closed')) return ['Closed every day'];
  if (words.every((w) => w === words[0])) return [`Every day ${words[0]}`];
  const runs: { from: Weekday; to: Weekday; words: string }[] = [];
  weekdays.forEach((day, i) => {
    const last = runs[runs.length - 1];
    if (last && last.words === words[i]) last.to = day;
    else runs.push({ from: day, to: day, words: words[i]! });
  });
  return runs.map((r) => `${r.from === r.to ? short(r.from) : `${short(r.from)}–${short(r.to)}`} ${r.words}`);
}

export const weekInWords = (weekly: WeeklyHours): string => weekRuns(weekly).join(' · ');

/** "Thu 10 Dec 2026" of a local date "2026-12-10" (the date itself, whatever the zone). */
export function dateInWords(date: string): string {
  const [y, m, d] = date.split('-').map(Number);
  return localDay(Date.UTC(y!, m! - 1, d!, 12), 'UTC');
}

/** The overrides from `today` for `days` days (dates compare as text), in date order. */
export function overridesWithin(
  overrides: readonly DateOverride[],
  today: string,
  days: number,
): DateOverride[] {
  const [y, m, d] = today.split('-').map(Number);
  const last = new Date(Date.UTC(y!, m! - 1, d! + days - 1)).toISOString().slice(0, 10);
  return overrides
    .filter((o) => o.date >= today && o.date <= last)
    .sort((a, b) => a.date.localeCompare(b.date));
}

/** "EUR 50.00", or "free". */
export function priceInWords(price: Money | null): string {
  return price ? `${price.currency} ${price.amount}` : 'free';
}
