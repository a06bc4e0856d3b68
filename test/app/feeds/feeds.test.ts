import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { holdSlot } from '../../../src/app/booking/hold-slot.js';
import { calendarFeed, createFeedLink, revokeFeedLink } from '../../../src/app/feeds/feed-links.js';
import {
  listSubscriptions,
  refreshDue,
  refreshSubscription,
  subscribe,
  unsubscribe,
} from '../../../src/app/feeds/subscriptions.js';
import type { ExternalBusyItem } from '../../../src/domain/feeds/external-busy.js';
import { DEFAULT_EVERY_MS } from '../../../src/domain/feeds/feeds.js';
import type { BusyFeedReader } from '../../../src/ports/busy-feed.js';
import { FeedReadError } from '../../../src/ports/busy-feed.js';
import { appHarness, operator } from '../../support/app-harness.js';
import { refusal } from '../../support/refusal.js';

// Monday 2030-01-07 08:00 UTC.
const T0 = Date.UTC(2030, 0, 7, 8);
const at = (iso: string) => Date.parse(iso);
const allWeek = (() => {
  const day = [{ start: '00:00', end: '24:00' }];
  return { weekly: { mon: day, tue: day, wed: day, thu: day, fri: day, sat: day, sun: day }, overrides: [] };
})();

/** A feed the test scripts: what each source holds, or the failure it gives. */
function scriptedReader() {
  const sources = new Map<string, ExternalBusyItem[] | Error>();
  const reads: string[] = [];
  const reader: BusyFeedReader = {
    check: (source) => (source.startsWith('https://') ? null : 'must be an https:// URL'),
    read: (source) => {
      reads.push(source);
      const found = sources.get(source);
      return found instanceof Error ? Promise.reject(found) : Promise.resolve(found ?? []);
    },
  };
  return { reader, sources, reads };
}

let h: Awaited<ReturnType<typeof appHarness>>;
let desk: string;
beforeEach(async () => {
  h = await appHarness(T0);
  desk = await h.calendar('Front desk', 'UTC', allWeek);
});
afterEach(() => h.close());

const hold = (start: string, end: string) =>
  holdSlot(h.deps, operator, { calendarIds: [desk], start, end, idempotencyKey: randomUUID() });

describe('outbound feed links', () => {
  it('shows holds as tentative and hides them once revoked; a malformed or unknown secret shows nothing', async () => {
    const { secret, link } = await createFeedLink(h.deps, 't1', desk);
    await hold('2030-01-08T10:00:00Z', '2030-01-08T11:00:00Z');
    const feed = await calendarFeed(h.deps, secret);
    expect(feed?.calendar.name).toBe('Front desk');
    expect(feed?.events.map((e) => [e.start, e.status])).toEqual([[at('2030-01-08T10:00:00Z'), 'TENTATIVE']]);
    expect(await calendarFeed(h.deps, 'not-a-secret')).toBeNull();
    expect(
      await calendarFeed(h.deps, `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`),
    ).toBeNull();
    await revokeFeedLink(h.deps, 't1', link.id);
    expect(await calendarFeed(h.deps, secret)).toBeNull();
    expect((await refusal(revokeFeedLink(h.deps, 't1', link.id))).code).toBe('NOT_FOUND');
  });

  it('refuses a link to a calendar of another tenant as unknown', async () => {
    expect((await refusal(createFeedLink(h.deps, 't2', desk))).code).toBe('NOT_FOUND');
  });
});

describe('inbound busy-time subscriptions', () => {
  it('refuses a source the reader does not take, naming the field, and stores nothing', async () => {
    const { reader } = scriptedReader();
    const refused = await refusal(subscribe(h.deps, reader, 't1', desk, 'file:///etc/passwd'));
    expect([refused.code, refused.details.field]).toEqual(['INVALID_ARGUMENTS', 'source']);
    expect(await listSubscriptions(h.deps, 't1')).toEqual([]);
  });

  it('blocks the imported busy time for holds, refreshes on schedule, and keeps it through a failed read', async () => {
    const { reader, sources, reads } = scriptedReader();
    const source = 'https://calendar.example/busy.ics';
    sources.set(source, [
      { kind: 'exact', start: at('2030-01-08T10:00:00Z'), end: at('2030-01-08T12:00:00Z') },
    ]);
    await subscribe(h.deps, reader, 't1', desk, source);
    expect(await refreshDue(h.deps, reader, 'me')).toEqual([expect.objectContaining({ ok: true, busy: 1 })]);
    expect((await refusal(hold('2030-01-08T11:00:00Z', '2030-01-08T11:30:00Z'))).code).toBe(
      'SLOT_UNAVAILABLE',
    );

    // Not due again until its interval has passed.
    expect(await refreshDue(h.deps, reader, 'me')).toEqual([]);
    h.clock.advance(DEFAULT_EVERY_MS);
    sources.set(source, new FeedReadError('HTTP 503 from calendar.example'));
    expect(await refreshDue(h.deps, reader, 'me')).toEqual([
      expect.objectContaining({ ok: false, error: 'HTTP 503 from calendar.example' }),
    ]);
    const [kept] = await listSubscriptions(h.deps, 't1');
    expect([kept?.lastError, kept?.busyCount]).toEqual(['HTTP 503 from calendar.example', 1]);
    expect((await refusal(hold('2030-01-08T11:00:00Z', '2030-01-08T11:30:00Z'))).code).toBe(
      'SLOT_UNAVAILABLE',
    );
    expect(reads).toEqual([source, source]);
  });

  it('never shows a reader’s unworded failure, and frees the time once unsubscribed', async () => {
    const { reader, sources } = scriptedReader();
    const source = 'https://calendar.example/private.ics';
    sources.set(source, [
      { kind: 'exact', start: at('2030-01-09T10:00:00Z'), end: at('2030-01-09T11:00:00Z') },
    ]);
    const subscription = await subscribe(h.deps, reader, 't1', desk, source);
    await refreshSubscription(h.deps, reader, 'me', 't1', subscription.id);
    sources.set(source, Object.assign(new Error('ECONNRESET at 10.0.0.7:443 password=hunter2'), {}));
    const outcome = await refreshSubscription(h.deps, reader, 'me', 't1', subscription.id);
    expect(outcome).toEqual({
      id: subscription.id,
      ok: false,
      error: 'internal error while reading the feed',
    });
    expect((await refusal(hold('2030-01-09T10:00:00Z', '2030-01-09T11:00:00Z'))).code).toBe(
      'SLOT_UNAVAILABLE',
    );
    await unsubscribe(h.deps, 't1', subscription.id);
    await hold('2030-01-09T10:00:00Z', '2030-01-09T11:00:00Z');
    expect((await refusal(unsubscribe(h.deps, 't1', subscription.id))).code).toBe('NOT_FOUND');
    expect((await refusal(refreshSubscription(h.deps, reader, 'me', 't1', subscription.id))).code).toBe(
      'NOT_FOUND',
    );
  });

  it('one refresh at a time: a subscription leased by another instance is refused, not read twice', async () => {
    const { reader, reads } = scriptedReader();
    const subscription = await subscribe(h.deps, reader, 't1', desk, 'https://calendar.example/a.ics');
    await h.deps.store.write((tx) => tx.feeds.lease('other-instance', T0, T0 + 60_000, 10));
    const busy = await refusal(refreshSubscription(h.deps, reader, 'me', 't1', subscription.id));
    expect(busy.code).toBe('INVALID_STATE');
    expect(reads).toEqual([]);
  });
});
