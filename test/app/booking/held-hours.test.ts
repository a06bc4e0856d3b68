import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createCalendar } from '../../../src/app/calendars/calendars.js';
import { holdSlot } from '../../../src/app/booking/hold-slot.js';
import type { Principal } from '../../../src/domain/identity/principal.js';
import type { DomainError } from '../../../src/domain/errors.js';
import { NO_LIMITS } from '../../../src/domain/identity/identity.js';
import { appHarnessOn, operator } from '../../support/app-harness.js';

// Hold squatting: one person's agents holding many calendars for days deny them to everyone.
// Besides the number of live holds, a person may hold at most so many calendar-hours at once
// (a hold counts its hours times its calendars), across every connection of theirs, checked
// inside the hold's own write — so racing holds cannot all fit under it.

const T0 = Date.UTC(2030, 0, 7, 8);
const allDay = [{ start: '00:00', end: '24:00' }];
const open = { weekly: { mon: allDay, tue: allDay, wed: allDay, thu: allDay, fri: allDay }, overrides: [] };
const as = (connectionId: string): Principal => ({
  ...operator,
  connectionId,
  limits: { ...NO_LIMITS, heldCalendarHoursPerPerson: 4 },
});
const at = (hour: number) => new Date(Date.UTC(2030, 0, 8, hour)).toISOString();

describe.each(['sqlite', 'postgres'] as const)('held calendar-hours per person on %s', (engine) => {
  let h: Awaited<ReturnType<typeof appHarnessOn>>;
  afterEach(() => h?.close());

  async function rooms(n: number) {
    h = await appHarnessOn(engine, T0);
    const ids: string[] = [];
    for (let i = 0; i < n; i++)
      ids.push(
        (
          await createCalendar(h.deps, operator, {
            name: `Room ${i}`,
            timeZone: 'UTC',
            availability: open,
            idempotencyKey: randomUUID(),
          })
        ).value.id,
      );
    return ids;
  }
  const hold = (who: Principal, calendarIds: string[], start: number, end: number) =>
    holdSlot(h.deps, who, { calendarIds, start: at(start), end: at(end), idempotencyKey: randomUUID() }).then(
      () => 'placed',
      (error: DomainError) => error,
    );

  it('counts hours × calendars across the person’s connections; the refusal says what is held and when it frees', async () => {
    const [a, b, c] = await rooms(3);
    expect(await hold(as('laptop'), [a!, b!], 9, 10)).toBe('placed'); // 2 calendar-hours
    expect(await hold(as('phone'), [c!], 9, 11)).toBe('placed'); // 2 more: 4
    const refused = await hold(as('tablet'), [a!], 12, 13);
    expect(refused).toMatchObject({
      code: 'RATE_LIMITED',
      details: {
        limit: 'held_calendar_hours',
        max: 4,
        heldCalendarHours: 4,
        askedCalendarHours: 1,
        retryAfterMs: 5 * 60_000,
      },
    });
    expect((refused as DomainError).message).toMatch(
      /At most 4 calendar-hours held at once per person .* you hold 4 in 2 hold\(s\) and this one adds 1\. .* lapses in 5 min\./,
    );
    // Another person is not affected.
    expect(await hold({ ...as('other'), subject: 'someone-else' }, [a!], 12, 13)).toBe('placed');
    // Once the holds lapse, there is room again.
    h.clock.advance(6 * 60_000);
    expect(await hold(as('tablet'), [a!, b!], 14, 16)).toBe('placed');
  });

  it('racing holds cannot all fit: 8 one-hour holds at once under a cap of 4, exactly 4 placed', async () => {
    const ids = await rooms(8);
    const outcomes = await Promise.all(ids.map((id, i) => hold(as(`conn-${i}`), [id], 9, 10)));
    expect(outcomes.filter((o) => o === 'placed')).toHaveLength(4);
    expect(outcomes.filter((o) => o !== 'placed').map((o) => (o as DomainError).details)).toEqual(
      Array(4).fill(expect.objectContaining({ limit: 'held_calendar_hours' })),
    );
  });
});
