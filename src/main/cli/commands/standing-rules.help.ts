import type { CommandDoc } from '../command-doc.js';
import { DATABASE } from '../command-doc.js';

export const standingRulesHelp: CommandDoc = {
  name: 'standing-rules',
  usage: [
    'holdfast standing-rules grant EMAIL [--actions A,B] [--calendars C,D|any] [--max-per-booking "80.00 EUR"] [--max-per-day "200.00 EUR"] [--weekdays mon-fri] [--hours 09:00-17:00] [--bookings-per-day N] [--customers any|known] [--connection TOKEN_ID] [--days N] [--zone IANA] [--json]',
    'holdfast standing-rules list [EMAIL] [--json]',
    'holdfast standing-rules revoke ID',
  ],
  summary:
    "Standing approvals: a person's rule under which their agents' confirmations, cancellations or moves are approved at once (each recorded as approved by the rule), within bounds, for at most 90 days. Everything outside it still goes to a person.",
  details: [
    'Only an owner or approver can hold one, and only for their own agents. Agents can never create, widen or read one.',
    'Limits per day are counted when a confirmation commits: agents racing at a cap of 3 get exactly 3.',
  ],
  options: [
    ...DATABASE,
    'actions',
    'calendars',
    'max-per-booking',
    'max-per-day',
    'weekdays',
    'hours',
    'bookings-per-day',
    'customers',
    'connection',
    'days',
    'zone',
    'json',
  ],
  examples: [
    'holdfast standing-rules grant olga@clinic.example --calendars "Dr. Lena Vogel" --max-per-booking "80.00 EUR" --weekdays mon-fri --hours 08:00-18:00 --bookings-per-day 3 --days 30',
    'holdfast standing-rules revoke rule_…',
  ],
};
