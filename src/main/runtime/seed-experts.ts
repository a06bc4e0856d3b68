import { calendarsLock } from '../../app/calendars/calendars.js';
import type { AppDeps } from '../../app/deps.js';
import { validateAvailability } from '../../domain/availability/availability.js';
import { DEFAULT_BOOKING_RULES } from '../../domain/availability/booking-rules.js';
import type { Calendar } from '../../domain/calendar.js';

/** One-hour slots, `2030-09-05T01:00` style, as UTC dates each open for exactly those hours. */
function hours(...starts: string[]) {
  const byDate = new Map<string, { start: string; end: string }[]>();
  for (const at of starts) {
    const [date, start] = at.split('T') as [string, string];
    const end = `${String(Number(start.slice(0, 2)) + 1).padStart(2, '0')}:00`;
    byDate.set(date, [...(byDate.get(date) ?? []), { start, end }]);
  }
  return [...byDate].map(([date, windows]) => ({ date, windows }));
}

/** expert-booking-mcp's three experts and six slots in 2030, UTC (seed 000, 假设与范围). */
export const EXPERTS = [
  {
    name: 'Dr. Lin Qiao',
    description: 'AI and machine learning: model strategy, evaluation and deployment reviews. 人工智能专家。',
    tags: ['ai', 'machine learning', '人工智能'],
    price: { amount: '500.00', currency: 'CNY' },
    slots: hours('2030-09-02T02:00', '2030-09-03T02:00'),
  },
  {
    name: 'Zhou Min',
    description: 'Commercial law: contracts, intellectual property and company formation. 法律顾问。',
    tags: ['law', 'contracts', '法律'],
    price: { amount: '300.00', currency: 'CNY' },
    slots: hours('2030-09-02T06:00', '2030-09-04T06:00'),
  },
  {
    name: 'Sara Okafor',
    description: 'Finance and tax for small companies: budgets, fundraising, cross-border tax. 财务顾问。',
    tags: ['finance', 'tax', '财务'],
    price: { amount: '400.00', currency: 'CNY' },
    slots: hours('2030-09-05T01:00', '2030-09-05T03:00'),
  },
];

/**
 * The experts of an empty tenant (--profile expert-booking), each open only at its preset
 * one-hour slots and bookable that far ahead; seeded once, under the tenant's calendar lock.
 */
export async function seedExperts(deps: AppDeps, tenantId: string): Promise<number> {
  return deps.store.write(async (tx) => {
    await tx.serialize(calendarsLock(tenantId));
    if ((await tx.calendars.count(tenantId)) > 0) return 0;
    for (const expert of EXPERTS) {
      const availability = { weekly: {}, overrides: expert.slots };
      validateAvailability(availability);
      const calendar: Calendar = {
        id: deps.ids.newId('cal'),
        tenantId,
        name: expert.name,
        timeZone: 'UTC',
        price: expert.price,
        availability,
        description: expert.description,
        tags: expert.tags,
        rules: {
          ...DEFAULT_BOOKING_RULES,
          allowedDurationsMinutes: [60],
          slotStepMinutes: 60,
          maximumHorizonDays: 3650,
        },
        createdAt: deps.clock.now(),
        version: 1,
      };
      await tx.calendars.insert(calendar);
    }
    return EXPERTS.length;
  });
}
