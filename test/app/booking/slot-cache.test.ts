import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemorySlotCache } from '../../../src/adapters/cache/memory-slot-cache.js';
import { releaseHold } from '../../../src/app/booking/release-hold.js';
import { findSlots } from '../../../src/app/booking/find-slots.js';
import { holdSlot } from '../../../src/app/booking/hold-slot.js';
import { appHarness, operator } from '../../support/app-harness.js';

const T0 = Date.UTC(2030, 0, 7, 8);
const allDay = [{ start: '00:00', end: '24:00' }];
const open = { weekly: { mon: allDay, tue: allDay }, overrides: [] };

let h: Awaited<ReturnType<typeof appHarness>>;
let room: string;
beforeEach(async () => {
  h = await appHarness(T0);
  room = await h.calendar('Room', 'UTC', open);
});
afterEach(() => h.close());

const query = () => ({
  calendarIds: [room],
  from: '2030-01-07T09:00:00Z',
  to: '2030-01-07T11:00:00Z',
  durationMinutes: 60,
  limit: 10,
});

describe('find_slots cache', () => {
  it('says whether an answer came from the cache: MISS, then HIT, then MISS after a write', async () => {
    const cacheOf = async () => (await findSlots(h.deps, operator, query())).cache;
    expect(await cacheOf()).toBe('MISS');
    expect(await cacheOf()).toBe('HIT');
    await holdSlot(h.deps, operator, {
      calendarIds: [room],
      start: '2030-01-07T09:00:00Z',
      end: '2030-01-07T10:00:00Z',
      idempotencyKey: randomUUID(),
    });
    expect(await cacheOf()).toBe('MISS');
  });

  it('serves fresh results after every write through the app', async () => {
    expect((await findSlots(h.deps, operator, query())).total).toBe(5);
    const held = await holdSlot(h.deps, operator, {
      calendarIds: [room],
      start: '2030-01-07T09:00:00Z',
      end: '2030-01-07T10:00:00Z',
      idempotencyKey: randomUUID(),
    });
    expect((await findSlots(h.deps, operator, query())).total).toBe(1);
    await releaseHold(h.deps, operator, {
      bookingId: held.value.booking.id,
      expectedVersion: 1,
      idempotencyKey: randomUUID(),
    });
    expect((await findSlots(h.deps, operator, query())).total).toBe(5);
  });

  it('never serves an answer past the first lapse of a hold in it: a lapsed hold frees its time without any write', async () => {
    await holdSlot(h.deps, operator, {
      calendarIds: [room],
      start: '2030-01-07T09:00:00Z',
      end: '2030-01-07T10:00:00Z',
      idempotencyKey: randomUUID(),
    });
    h.clock.advance(5 * 60_000 - 1_000);
    expect((await findSlots(h.deps, operator, query())).total).toBe(1);
    // Younger than the 2 s age bound, but the hold in it has lapsed: computed again.
    h.clock.advance(1_000);
    expect((await findSlots(h.deps, operator, query())).total).toBe(5);
  });

  it('never serves past its age bound', async () => {
    const cache = new MemorySlotCache(2_000);
    const generation = cache.generation('t');
    cache.set({ tenantId: 't', key: 'k', calendarIds: ['a'], starts: [1], now: 0, generation });
    expect(cache.get('t', 'k', 1_999)).toEqual([1]);
    expect(cache.get('t', 'k', 2_000)).toBeUndefined();
  });

  it('drops a result computed before an invalidation instead of storing it', () => {
    const cache = new MemorySlotCache(10_000);
    const generation = cache.generation('t');
    cache.invalidate('t', ['a']);
    cache.set({ tenantId: 't', key: 'k', calendarIds: ['a'], starts: [1], now: 0, generation });
    expect(cache.get('t', 'k', 0)).toBeUndefined();
    cache.set({
      tenantId: 't',
      key: 'k',
      calendarIds: ['a'],
      starts: [1],
      now: 0,
      generation: cache.generation('t'),
    });
    expect(cache.get('t', 'k', 1)).toEqual([1]);
    cache.invalidate('t', ['b']);
    expect(cache.get('t', 'k', 1)).toEqual([1]);
    cache.invalidate('other');
    expect(cache.get('t', 'k', 1)).toEqual([1]);
    cache.invalidate('t', ['a']);
    expect(cache.get('t', 'k', 1)).toBeUndefined();
  });
});
