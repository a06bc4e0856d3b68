import type { Calendar } from './calendar.js';
import { invalidArgument } from './errors.js';

/** What a calendar says about itself so an agent can find it by need rather than by id. */

export const MAX_TAGS = 20;
export const MAX_TAG_LENGTH = 50;
export const MAX_DESCRIPTION_LENGTH = 1000;
export const MAX_QUERY_WORDS = 10;

/** Tags as kept: trimmed, none blank or too long, no two the same ignoring case, at most MAX_TAGS. */
export function calendarTags(tags: readonly string[], field = 'tags'): string[] {
  const kept: string[] = [];
  const seen = new Set<string>();
  for (const [index, raw] of tags.entries()) {
    const tag = raw.trim();
    if (tag.length === 0) throw invalidArgument(`${field}[${index}]`, 'a tag may not be blank');
    if (tag.length > MAX_TAG_LENGTH)
      throw invalidArgument(`${field}[${index}]`, `at most ${MAX_TAG_LENGTH} characters`);
    if (seen.has(fold(tag))) continue;
    seen.add(fold(tag));
    kept.push(tag);
  }
  if (kept.length > MAX_TAGS) throw invalidArgument(field, `at most ${MAX_TAGS} tags`);
  return kept;
}

/** A description as kept: trimmed; blank means none. */
export function calendarDescription(text: string, field = 'description'): string | undefined {
  const trimmed = text.trim();
  if (trimmed.length > MAX_DESCRIPTION_LENGTH)
    throw invalidArgument(field, `at most ${MAX_DESCRIPTION_LENGTH} characters`);
  return trimmed.length === 0 ? undefined : trimmed;
}

/**
 * The words of a search by need, folded (case and accents ignored) so "Dermatología" finds
 * "dermatologia". Words are split on spaces and commas; a script without spaces (Chinese)
 * matches as the phrase typed.
 */
export function queryWords(query: string, field = 'query'): string[] {
  const words = [
    ...new Set(
      fold(query)
        .split(/[\s,;]+/u)
        .filter((w) => w.length > 0),
    ),
  ];
  if (words.length === 0) throw invalidArgument(field, 'give at least one word to match');
  if (words.length > MAX_QUERY_WORDS) throw invalidArgument(field, `at most ${MAX_QUERY_WORDS} words`);
  return words;
}

/** Whether every word appears in the calendar's name, description or tags. */
export function calendarMatches(calendar: Calendar, words: readonly string[]): boolean {
  const text = fold([calendar.name, calendar.description ?? '', ...(calendar.tags ?? [])].join('\n'));
  return words.every((word) => text.includes(word));
}

function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}
