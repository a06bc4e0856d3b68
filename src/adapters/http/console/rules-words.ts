import type { BookingRules } from '../../../domain/availability/booking-rules.js';
import { duration } from '../../format/human-time.js';

/**
 * Booking rules as a person reads them: "15 min buffer after each booking · at least 24 h
 * notice · up to 90 days ahead · 3 seats", and the labels of the rules form's inputs.
 */

const MINUTE_MS = 60_000;

/** "30 min", "1 h 30 min", "24 h"; from two days on, whole days as "3 days" rather than "3 d 0 h". */
function span(minutes: number): string {
  if (minutes >= 2880 && minutes % 1440 === 0) return `${minutes / 1440} days`;
  return duration(minutes * MINUTE_MS);
}

const lengths = (minutes: readonly number[]) => {
  const words = [...minutes].sort((a, b) => a - b).map(span);
  return words.length === 1 ? words[0]! : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
};

const times = (n: number) => (n === 1 ? '1 booking' : `${n} bookings`);

/** Each rule that does something, in the order a person meets them; the horizon and seats always. */
export function rulesInWords(rules: BookingRules): string[] {
  const parts: string[] = [];
  const { bufferBeforeMinutes: before, bufferAfterMinutes: after } = rules;
  if (before > 0 && before === after) parts.push(`${span(before)} buffer before and after each booking`);
  else {
    if (before > 0) parts.push(`${span(before)} buffer before each booking`);
    if (after > 0) parts.push(`${span(after)} buffer after each booking`);
  }
  if (rules.minimumNoticeMinutes > 0) parts.push(`at least ${span(rules.minimumNoticeMinutes)} notice`);
  parts.push(`up to ${rules.maximumHorizonDays === 1 ? '1 day' : `${rules.maximumHorizonDays} days`} ahead`);
  if (rules.slotStepMinutes !== null) parts.push(`starts every ${span(rules.slotStepMinutes)}`);
  if (rules.allowedDurationsMinutes !== null)
    parts.push(`${lengths(rules.allowedDurationsMinutes)} bookings only`);
  if (rules.maxBookingsPerDay !== null) parts.push(`at most ${times(rules.maxBookingsPerDay)} a day`);
  if (rules.maxBookingsPerWeek !== null) parts.push(`at most ${times(rules.maxBookingsPerWeek)} a week`);
  if (rules.maxBookingsPerCustomerPerDay !== null)
    parts.push(`at most ${times(rules.maxBookingsPerCustomerPerDay)} a day per customer`);
  if (rules.maxBookingsPerCustomerPerWeek !== null)
    parts.push(`at most ${times(rules.maxBookingsPerCustomerPerWeek)} a week per customer`);
  parts.push(rules.capacity === 1 ? 'one booking at a time' : `${rules.capacity} seats`);
  return parts;
}

export const rulesSummary = (rules: BookingRules): string => rulesInWords(rules).join(' · ');

/** Each rule's input on the form and its label, by the rule's name (the field a refusal names). */
export const RULE_INPUTS: Record<string, { readonly inputId: string; readonly label: string }> = {
  bufferBeforeMinutes: { inputId: 'rule-before', label: 'Buffer before each booking' },
  bufferAfterMinutes: { inputId: 'rule-after', label: 'Buffer after each booking' },
  minimumNoticeMinutes: { inputId: 'rule-notice', label: 'Minimum notice' },
  maximumHorizonDays: { inputId: 'rule-horizon', label: 'How far ahead' },
  slotStepMinutes: { inputId: 'rule-step', label: 'Start times every' },
  allowedDurationsMinutes: { inputId: 'rule-lengths', label: 'Lengths offered' },
  maxBookingsPerDay: { inputId: 'rule-day', label: 'Bookings per day' },
  maxBookingsPerWeek: { inputId: 'rule-week', label: 'Bookings per week' },
  maxBookingsPerCustomerPerDay: { inputId: 'rule-customer-day', label: 'Per customer per day' },
  maxBookingsPerCustomerPerWeek: { inputId: 'rule-customer-week', label: 'Per customer per week' },
  capacity: { inputId: 'rule-seats', label: 'Seats' },
};
