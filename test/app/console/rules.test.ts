import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  calendarDetail,
  calendarsOverview,
  previewLength,
  setRulesAs,
} from '../../../src/app/console/calendars.js';
import { addPerson } from '../../../src/app/identity/people.js';
import type { BookingRules } from '../../../src/domain/availability/booking-rules.js';
import { DEFAULT_BOOKING_RULES } from '../../../src/domain/availability/booking-rules.js';
import { rulesOf } from '../../../src/domain/calendar.js';
import type { Person, Role } from '../../../src/domain/identity/identity.js';
import { appHarness } from '../../support/app-harness.js';
import { refusal } from '../../support/refusal.js';

// The console's booking rules as a use case, without a page in front: only an owner sets them,
// through set_booking_rules (one change per form key, the version moved once), a refusal changes
// nothing, and the preview the calendar page shows is find_slots under the new rules.

// Monday 2030-01-07 08:00 UTC = 09:00 in Berlin.
const T0 = Date.UTC(2030, 0, 7, 8);
const HOUR = 3_600_000;
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

const RULES: BookingRules = {
  ...DEFAULT_BOOKING_RULES,
  bufferAfterMinutes: 30,
  minimumNoticeMinutes: 24 * 60,
  maxBookingsPerDay: 3,
  capacity: 2,
};

describe('booking rules set from the console', () => {
  it('refuses an approver, a viewer and another tenant’s owner; nothing changes', async () => {
    const before = await stored();
    for (const role of ['approver', 'viewer'] as const) {
      const error = await refusal(
        setRulesAs(h.deps, people[role], { calendarId: berlin, rules: RULES, idempotencyKey: randomUUID() }),
      );
      expect(error.code, role).toBe('FORBIDDEN');
      expect(error.message).toContain('Only an owner');
    }
    const stranger = await addPerson(h.deps, { tenantId: 'other', email: 'x@other.example', role: 'owner' });
    const error = await refusal(
      setRulesAs(h.deps, stranger, { calendarId: berlin, rules: RULES, idempotencyKey: randomUUID() }),
    );
    expect(error.code).toBe('NOT_FOUND');
    expect(await stored()).toEqual(before);
  });

  it('an owner’s rules are stored whole, once per form key; bad rules name their field and change nothing', async () => {
    const input = { calendarId: berlin, rules: RULES, idempotencyKey: randomUUID() };
    const first = await setRulesAs(h.deps, people.owner, input);
    const again = await setRulesAs(h.deps, people.owner, input);
    expect(again).toEqual(first);
    const now = await stored();
    expect(rulesOf(now)).toEqual(RULES);
    expect(now.version).toBe(2);

    const error = await refusal(
      setRulesAs(h.deps, people.owner, {
        calendarId: berlin,
        rules: { ...RULES, slotStepMinutes: 7 },
        idempotencyKey: randomUUID(),
      }),
    );
    expect(error.details.field).toBe('slotStepMinutes');
    expect(await stored()).toEqual(now);
  });

  it('the page’s preview is find_slots under the rules: notice, a per-day limit, allowed lengths, the start grid', async () => {
    const before = (await calendarDetail(h.deps, people.viewer, berlin))!;
    expect(before.preview.days[0]!.slots).toHaveLength(8);
    await setRulesAs(h.deps, people.owner, {
      calendarId: berlin,
      rules: { ...RULES, allowedDurationsMinutes: [45, 90], slotStepMinutes: 30 },
      idempotencyKey: randomUUID(),
    });
    const detail = (await calendarDetail(h.deps, people.viewer, berlin))!;
    // 60 minutes is not offered: the preview shows the shortest length that is, on the calendar's grid.
    expect(detail.preview.length).toEqual({ durationMinutes: 45, stepMinutes: 30 });
    const [monday, tuesday] = detail.preview.days;
    // 24 h notice from Monday 09:00 leaves nothing on Monday; Tuesday starts at 09:00.
    expect(monday!.slots).toEqual([]);
    expect(tuesday!.slots[0]).toEqual({ start: T0 + 24 * HOUR, end: T0 + 24 * HOUR + 45 * 60_000 });
    expect(tuesday!.slots.map((s) => s.start - tuesday!.slots[0]!.start)).toEqual(
      Array.from({ length: 15 }, (_, i) => i * 30 * 60_000),
    );
    // The list's next slots follow the same rules rather than failing on a length the calendar refuses.
    const overview = await calendarsOverview(h.deps, people.viewer, 1);
    expect(overview.rows[0]!.nextSlots[0]).toEqual(tuesday!.slots[0]);
  });

  it('previewLength keeps an offered length and the asked step when the calendar has no rule of its own', () => {
    const asked = { durationMinutes: 60, stepMinutes: 60 };
    expect(previewLength(DEFAULT_BOOKING_RULES, asked)).toEqual(asked);
    const rules = { ...DEFAULT_BOOKING_RULES, allowedDurationsMinutes: [90, 45], slotStepMinutes: 15 };
    expect(previewLength(rules, { durationMinutes: 90, stepMinutes: 30 })).toEqual({
      durationMinutes: 90,
      stepMinutes: 15,
    });
  });
});
