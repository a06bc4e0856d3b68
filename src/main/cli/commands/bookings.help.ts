import type { CommandDoc } from '../command-doc.js';
import { DATABASE } from '../command-doc.js';

export const sweepHelp: CommandDoc = {
  name: 'sweep',
  usage: ['holdfast sweep [--json]'],
  summary:
    "Expire lapsed holds, purge old idempotency records, follow up late payments, erase customers past their tenant's retention, once.",
  options: [...DATABASE, 'json'],
  examples: ['holdfast sweep --db ./data/holdfast.db'],
};

export const reconciliationHelp: CommandDoc = {
  name: 'reconciliation',
  usage: ['holdfast reconciliation [--json]'],
  summary:
    'Run a sweep, then list money to settle: bookings paid after their hold lapsed (money without time) and cancelled paid bookings whose money is owed back.',
  options: [...DATABASE, 'json'],
  examples: ['holdfast reconciliation --json'],
};
