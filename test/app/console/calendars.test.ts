import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyChange } from '../../../src/app/calendars/calendar-edits.js';
import {
  calendarDetail,
  calendarsOverview,
  createCalendarAs,
  removeOverrideAs,
  replaceWeekAs,
  setOverrideAs,
  updateDetailsAs,
} from '../../../src/app/console/calendars.js';
import { findSlots } from '../../../src/app/booking/find-slots.js';
import { addPerson } from '../../../src/app/identity/people.js';
import type { Person, Role } from '../../../src/domain/identity/identity.js';
import { appHarness, operator } from '../../support/app-harness.js';
import { refusal } from '../../support/refusal.js';

// The console's calendar use cases on their own, without a page in front: the role is checked
// here (a hand-made request gets no further than the form would), each change is one change per
// form key, invalid input changes nothing and names its field, and the caches forget the old
// calendar so agents see the change at once.

// Monday 2030-01-07 08:00 UTC = 09:00 in Berlin.
const T0 = Date.UTC(2030, 0, 7, 8);
const nineToFive = [{ start: '09:00', end: '17:00' }];
const weekdays = { mon: nineToFive, tue: nineToFive, wed: nineToFive, thu: nineToFive, fri: nineToFive };

let h: Awaited<ReturnType<typeof appHarness>>;
let berlin: string;
const people = {} as Record<Role, Person>;

beforeEach(async () => {
  h = await appHarness(T0);
  berlin = await h.calendar('Berlin desk', 'Europe/Berlin', { weekly: weekdays, overrides: [] });
  for (const role of ['owner', 'approver', 'viewer'] as const)
    people[role] = await addPerson(h.deps, { tenantId: 't1', email: `${role}@example.com`, role });
});
afterEach(() => h.close());

const stored = async () => (await h.deps.store.read((tx) => tx.calendars.get('t1', [berlin])))[0]!;
const key = () => randomUUID();
const slotsOn = async (date: string) =>
  (
    await findSlots(h.deps, operator, {
      calendarIds: [berlin],
      from: `${date}T00:00:00+01:00`,
      to: `${date}T23:59:00+01:00`,
      durationMinutes: 60,
      stepMinutes: 60,
      limit: 50,
    })
  ).slots;

describe('console calendars, as the signed-in person', () => {
  it('refuses every change to an approver and a viewer, whatever a page would show: FORBIDDEN, nothing changed', async () => {
    const before = await stored();
    for (const role of ['approver', 'viewer'] as const) {
      const person = people[role];
      const attempts = [
        createCalendarAs(h.deps, person, {
          name: 'Mine',
          timeZone: 'UTC',
          price: null,
          weekly: {},
          idempotencyKey: key(),
        }),
        updateDetailsAs(h.deps, person, {
          calendarId: berlin,
          name: 'Taken over',
          timeZone: 'UTC',
          price: null,
          idempotencyKey: key(),
        }),
        replaceWeekAs(h.deps, person, { calendarId: berlin, weekly: {}, idempotencyKey: key() }),
        setOverrideAs(h.deps, person, {
          calendarId: berlin,
          override: { date: '2030-01-08', windows: [] },
          idempotencyKey: key(),
        }),
        removeOverrideAs(h.deps, person, { calendarId: berlin, date: '2030-01-08', idempotencyKey: key() }),
      ];
      for (const attempt of attempts) {
        const error = await refusal(attempt);
        expect(error.code, role).toBe('FORBIDDEN');
        expect(error.message).toContain(`Only an owner`);
      }
    }
    expect(await stored()).toEqual(before);
    expect(await h.deps.store.read((tx) => tx.calendars.count('t1'))).toBe(1);
  });

  it('lets everyone look: the list with next slots, and the next 14 local days with their slots', async () => {
    for (const person of Object.values(people)) {
      const overview = await calendarsOverview(h.deps, person, 1);
      expect(overview.mayEdit).toBe(person.role === 'owner');
      expect(overview.rows.map((r) => r.calendar.id)).toEqual([berlin]);
      expect(overview.rows[0]!.nextSlots.map((s) => s.start)).toEqual([T0, T0 + 3_600_000, T0 + 7_200_000]);
    }
    const detail = (await calendarDetail(h.deps, people.viewer, berlin))!;
    expect(detail.preview.from).toBe(Date.UTC(2030, 0, 6, 23));
    expect(detail.preview.to - detail.preview.from).toBe(14 * 24 * 3_600_000);
    expect(detail.preview.days.map((d) => d.date).slice(0, 2)).toEqual(['2030-01-07', '2030-01-08']);
    expect(detail.preview.days[0]!.slots).toHaveLength(8);
    expect(detail.preview.days[5]).toMatchObject({ date: '2030-01-12', open: false, slots: [] });
    // Another tenant's person: as if there were none.
    const stranger = await addPerson(h.deps, { tenantId: 'other', email: 'x@other.example', role: 'owner' });
    expect(await calendarDetail(h.deps, stranger, berlin)).toBeNull();
    expect((await calendarsOverview(h.deps, stranger, 1)).rows).toEqual([]);
  });

  it('an owner’s change happens once per form key, moves the version once, and agents see it at once', async () => {
    expect(await slotsOn('2030-01-08')).toHaveLength(8); // cached from now on
    h.deps.calendarCache.remember([await stored()]);
    const change = {
      calendarId: berlin,
      weekly: { tue: [{ start: '10:00', end: '12:00' }] },
      idempotencyKey: key(),
    };
    const first = await replaceWeekAs(h.deps, people.owner, change);
    const again = await replaceWeekAs(h.deps, people.owner, change);
    expect(again).toEqual(first);
    expect(await stored()).toMatchObject({
      version: 2,
      availability: { weekly: change.weekly, overrides: [] },
    });
    expect(h.deps.calendarCache.get('t1', [berlin])).toBeNull();
    expect((await slotsOn('2030-01-08')).map((s) => s.start)).toEqual([
      Date.UTC(2030, 0, 8, 9),
      Date.UTC(2030, 0, 8, 10),
    ]);
    // The same key for something else is a conflict, not a second change.
    const reused = await refusal(replaceWeekAs(h.deps, people.owner, { ...change, weekly: {} }));
    expect(reused.code).toBe('IDEMPOTENCY_CONFLICT');
    expect((await stored()).version).toBe(2);
  });

  it('keeps the week when a date changes and the dates when the week changes; an override replaces its date’s', async () => {
    const owner = people.owner;
    await setOverrideAs(h.deps, owner, {
      calendarId: berlin,
      override: { date: '2030-01-08', windows: [] },
      idempotencyKey: key(),
    });
    expect(await slotsOn('2030-01-08')).toEqual([]);
    const special = { date: '2030-01-08', windows: [{ start: '13:00', end: '14:00' }] };
    await setOverrideAs(h.deps, owner, { calendarId: berlin, override: special, idempotencyKey: key() });
    expect((await stored()).availability).toEqual({ weekly: weekdays, overrides: [special] });
    expect((await slotsOn('2030-01-08')).map((s) => s.start)).toEqual([Date.UTC(2030, 0, 8, 12)]);
    await replaceWeekAs(h.deps, owner, {
      calendarId: berlin,
      weekly: { sat: nineToFive },
      idempotencyKey: key(),
    });
    expect((await stored()).availability).toEqual({ weekly: { sat: nineToFive }, overrides: [special] });
    await removeOverrideAs(h.deps, owner, { calendarId: berlin, date: '2030-01-08', idempotencyKey: key() });
    expect((await stored()).availability).toEqual({ weekly: { sat: nineToFive }, overrides: [] });
    expect((await stored()).version).toBe(5);
  });

  it('loses no change made by someone else between its read and its write: it reads again and applies on top', async () => {
    const store = h.deps.store;
    let interfered = false;
    // Another instance renames the calendar just before this change writes (PostgreSQL allows it).
    const racing: typeof store = {
      ...store,
      read: (work) => store.read(work),
      write: (work) =>
        store.write((tx) => {
          const calendars = Object.create(tx.calendars) as typeof tx.calendars;
          calendars.replaceAvailability = async (...args) => {
            if (!interfered) {
              interfered = true;
              const [now] = await tx.calendars.get('t1', [berlin]);
              await tx.calendars.updateDetails(
                't1',
                berlin,
                { ...now!, name: 'Renamed meanwhile', tags: now!.tags ?? [] },
                now!.version,
              );
            }
            return tx.calendars.replaceAvailability(...args);
          };
          return work(Object.assign(Object.create(tx) as typeof tx, { calendars }));
        }),
    };
    const weekly = { sat: nineToFive };
    const changed = await replaceWeekAs({ ...h.deps, store: racing }, people.owner, {
      calendarId: berlin,
      weekly,
      idempotencyKey: key(),
    });
    expect(interfered).toBe(true);
    expect(changed).toMatchObject({ name: 'Renamed meanwhile', version: 3 });
    expect(await stored()).toMatchObject({ name: 'Renamed meanwhile', availability: { weekly }, version: 3 });
  });

  it('renames, re-zones and re-prices; a name is trimmed and a price can go', async () => {
    const owner = people.owner;
    await updateDetailsAs(h.deps, owner, {
      calendarId: berlin,
      name: '  Tokyo desk ',
      timeZone: 'Asia/Tokyo',
      price: { amount: '5000', currency: 'JPY' },
      idempotencyKey: key(),
    });
    expect(await stored()).toMatchObject({
      name: 'Tokyo desk',
      timeZone: 'Asia/Tokyo',
      price: { amount: '5000', currency: 'JPY' },
      version: 2,
    });
    // Tuesday 09:00 in Tokyo is 00:00 UTC.
    const tuesday = await findSlots(h.deps, operator, {
      calendarIds: [berlin],
      from: '2030-01-08T00:00:00+09:00',
      to: '2030-01-09T00:00:00+09:00',
      durationMinutes: 60,
      stepMinutes: 60,
      limit: 1,
    });
    expect(tuesday.slots[0]!.start).toBe(Date.UTC(2030, 0, 8, 0));
    await updateDetailsAs(h.deps, owner, {
      calendarId: berlin,
      name: 'Tokyo desk',
      timeZone: 'Asia/Tokyo',
      price: null,
      idempotencyKey: key(),
    });
    expect(await stored()).toMatchObject({ price: null, version: 3 });
    const made = await createCalendarAs(h.deps, owner, {
      name: ' Room 2 ',
      timeZone: 'UTC',
      price: null,
      weekly: { mon: nineToFive },
      idempotencyKey: key(),
    });
    expect(made).toMatchObject({
      name: 'Room 2',
      price: null,
      availability: { weekly: { mon: nineToFive }, overrides: [] },
    });
  });

  it('refuses invalid input naming the field, and changes nothing', async () => {
    const owner = people.owner;
    const before = await stored();
    const field = async (promise: Promise<unknown>) => {
      const error = await refusal(promise);
      expect(error.code).toBe('INVALID_ARGUMENTS');
      return error.details.field;
    };
    const details = { calendarId: berlin, name: 'x', timeZone: 'UTC', price: null, idempotencyKey: key() };
    expect(await field(updateDetailsAs(h.deps, owner, { ...details, name: '   ' }))).toBe('name');
    expect(await field(updateDetailsAs(h.deps, owner, { ...details, name: 'x'.repeat(201) }))).toBe('name');
    expect(await field(updateDetailsAs(h.deps, owner, { ...details, timeZone: 'Mars/Base' }))).toBe(
      'timeZone',
    );
    expect(
      await field(updateDetailsAs(h.deps, owner, { ...details, price: { amount: '1', currency: 'eur' } })),
    ).toBe('price.currency');
    const week = (weekly: object) =>
      replaceWeekAs(h.deps, owner, { calendarId: berlin, weekly: weekly as never, idempotencyKey: key() });
    expect(await field(week({ mon: [{ start: '10:00', end: '09:00' }] }))).toBe('weekly.mon[0]');
    expect(await field(week({ fri: [{ start: '9', end: '17:00' }] }))).toBe('weekly.fri[0].start');
    expect(
      await field(
        week({
          wed: [
            { start: '09:00', end: '12:00' },
            { start: '11:00', end: '13:00' },
          ],
        }),
      ),
    ).toBe('weekly.wed[1]');
    const override = (date: string, windows: { start: string; end: string }[] = []) =>
      setOverrideAs(h.deps, owner, {
        calendarId: berlin,
        override: { date, windows },
        idempotencyKey: key(),
      });
    expect(await field(override('2030-02-30'))).toBe('overrides[0].date');
    expect(await field(override('2030-01-08', [{ start: '12:00', end: '25:00' }]))).toBe(
      'overrides[0].windows[0].end',
    );
    expect(await stored()).toEqual(before);
    // An unknown calendar is not found, also for an owner.
    const missing = await refusal(
      replaceWeekAs(h.deps, owner, { calendarId: 'cal_nothere', weekly: {}, idempotencyKey: key() }),
    );
    expect(missing.code).toBe('NOT_FOUND');
  });
});

describe('applyChange', () => {
  const base = { weekly: { mon: nineToFive }, overrides: [{ date: '2030-01-09', windows: [] }] };
  it('puts overrides in date order, replaces one of the same date, and tidies the week', () => {
    const late = {
      date: '2030-01-10',
      windows: [
        { start: '12:00', end: '13:00' },
        { start: '08:00', end: '09:00' },
      ],
    };
    const early = { date: '2030-01-08', windows: [] };
    const two = applyChange(applyChange(base, { setOverride: late }), { setOverride: early });
    expect(two.overrides.map((o) => o.date)).toEqual(['2030-01-08', '2030-01-09', '2030-01-10']);
    expect(two.overrides[2]!.windows.map((w) => w.start)).toEqual(['08:00', '12:00']);
    const replaced = applyChange(two, { setOverride: { date: '2030-01-09', windows: nineToFive } });
    expect(replaced.overrides.filter((o) => o.date === '2030-01-09')).toEqual([
      { date: '2030-01-09', windows: nineToFive },
    ]);
    expect(applyChange(base, { removeOverride: '2030-01-09' })).toEqual({
      weekly: base.weekly,
      overrides: [],
    });
    expect(applyChange(base, { removeOverride: '2031-01-01' })).toEqual(base);
    expect(
      applyChange(base, {
        weekly: {
          sun: [],
          tue: [
            { start: '13:00', end: '14:00' },
            { start: '09:00', end: '10:00' },
          ],
        },
      }),
    ).toEqual({
      weekly: {
        tue: [
          { start: '09:00', end: '10:00' },
          { start: '13:00', end: '14:00' },
        ],
      },
      overrides: base.overrides,
    });
  });
});
