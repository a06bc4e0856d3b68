import { describe, expect, it } from 'vitest';
import { busyItemsOf } from '../../../src/adapters/feeds/ics-import.js';
import { MAX_IMPORT_INSTANCES } from '../../../src/domain/feeds/external-busy.js';
import { FeedReadError } from '../../../src/ports/busy-feed.js';

const DAY = 86_400_000;
const start = Date.parse('2030-01-01T00:00:00Z');

/** Hourly series whose instances have no length: nothing to keep, everything to expand. */
function hostileFeed(series: number): string {
  const events = Array.from(
    { length: series },
    (_, i) => `BEGIN:VEVENT
UID:zero-${i}@attacker
DTSTAMP:20291231T000000Z
DTSTART:20300101T000000Z
DTEND:20300101T000000Z
RRULE:FREQ=HOURLY
END:VEVENT`,
  );
  return `BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//attack//EN\n${events.join('\n')}\nEND:VCALENDAR\n`;
}

describe('importing a hostile feed', () => {
  it('counts instances it drops (zero-length) against the limit, so expansion stops early', () => {
    const window = { start, end: start + 400 * DAY };
    let thrown: unknown;
    try {
      busyItemsOf(hostileFeed(60), window);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(FeedReadError);
    expect(String((thrown as Error).message)).toContain(`more than ${MAX_IMPORT_INSTANCES}`);
  });

  it('keeps an ordinary hourly series within the limit', () => {
    const feed = hostileFeed(1).replace('DTEND:20300101T000000Z', 'DTEND:20300101T003000Z');
    expect(busyItemsOf(feed, { start, end: start + 30 * DAY - 60_000 })).toHaveLength(30 * 24);
  });
});

describe('exporting a calendar whose name carries line breaks', () => {
  it('keeps the name on one line: no event or property of its own', async () => {
    const { renderIcs } = await import('../../../src/adapters/feeds/ics-export.js');
    const name = 'Room\r\nEND:VCALENDAR\r\nBEGIN:VEVENT\r\nURL:https://evil.example/\r\nEND:VEVENT\u2028X';
    const text = renderIcs(
      {
        calendar: {
          id: 'cal_1',
          tenantId: 't1',
          name,
          timeZone: 'UTC',
          price: null,
          availability: { weekly: {}, overrides: [] },
          createdAt: start,
          version: 1,
        },
        events: [],
      },
      start,
    );
    // Unfold continuation lines, then look at what each property line starts with.
    const lines = text.replace(/\r\n[ \t]/g, '').split('\r\n');
    expect(lines.filter((line) => /^(URL|BEGIN:VEVENT|END:VEVENT)/.test(line))).toEqual([]);
    expect(lines.filter((line) => line === 'END:VCALENDAR')).toHaveLength(1);
  });
});
