import type { CommandDoc } from '../command-doc.js';
import { DATABASE } from '../command-doc.js';

export const customersHelp: CommandDoc = {
  name: 'customers',
  usage: ['holdfast customers erase EMAIL [--json]'],
  summary:
    "Erase a customer's details everywhere (their name, e-mail, phone, notes) by destroying their key.",
  details: [
    "Every booking keeps its time, calendars, money and trail; the customer's details become unreadable in every",
    'booking, outbox snapshot and copy of the database taken from now on. Cannot be undone. `audit verify` still',
    'passes: the trail never held the details. The address itself is not recorded in the trail.',
    'A tenant can erase customers automatically: holdfast tenants set ID --customer-retention DAYS.',
  ],
  options: [...DATABASE, 'json'],
  examples: ['holdfast customers erase ana@example.com'],
};
