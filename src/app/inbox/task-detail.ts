import type { Customer } from '../../domain/booking/booking.js';
import { DomainError } from '../../domain/errors.js';

/**
 * What a stored task says, read back from the event the agent submitted (snake_case, ids mapped
 * to indices). Stored JSON is read defensively: a field of the wrong type reads as absent.
 */
export interface TaskBooking {
  readonly calendarId: string;
  readonly start: string;
  readonly end: string;
  readonly customer: Readonly<Record<string, unknown>> | null;
  readonly label: string | null;
  readonly confirmationNumber: string | null;
  readonly groupCode: string | null;
  readonly reservationNo: string | null;
}

export interface TaskDetail {
  readonly eventType: string | null;
  readonly summary: string | null;
  readonly caseKeys: {
    readonly groupCode: string | null;
    readonly confirmationNumber: string | null;
    readonly reservationNo: string | null;
  };
  readonly targetObjectId: string | null;
  readonly booking: TaskBooking | null;
  readonly manualReviewReason: string | null;
}

type Json = Readonly<Record<string, unknown>>;
const text = (o: Json | null, k: string): string | null =>
  o && typeof o[k] === 'string' && o[k] !== '' ? o[k] : null;
const object = (o: Json | null, k: string): Json | null =>
  o && o[k] && typeof o[k] === 'object' && !Array.isArray(o[k]) ? (o[k] as Json) : null;

export function readTaskDetail(detail: Json): TaskDetail {
  const keys = object(detail, 'case_keys');
  const b = object(detail, 'booking');
  const calendarId = text(b, 'calendar_id');
  const start = text(b, 'start');
  const end = text(b, 'end');
  return {
    eventType: text(detail, 'event_type'),
    summary: text(detail, 'summary'),
    caseKeys: {
      groupCode: text(keys, 'group_code'),
      confirmationNumber: text(keys, 'confirmation_number'),
      reservationNo: text(keys, 'reservation_no'),
    },
    targetObjectId: text(detail, 'target_object_id'),
    booking:
      b && calendarId && start && end
        ? {
            calendarId,
            start,
            end,
            customer: object(b, 'customer'),
            label: text(b, 'label'),
            confirmationNumber: text(b, 'confirmation_number'),
            groupCode: text(b, 'group_code'),
            reservationNo: text(b, 'reservation_no'),
          }
        : null,
    manualReviewReason: text(object(detail, 'manual_review'), 'reason'),
  };
}

const CUSTOMER_LIMITS = { name: 200, email: 254, phone: 40, notes: 2000 } as const;
const PHONE = /^[+\d][\d\s+()./-]*$/;

/**
 * The customer a task names, as `hold_slot` would take it: the four fields that are strings,
 * within the same bounds, or an INVALID_ARGUMENTS naming the field the person must fix.
 */
export function taskCustomer(given: Readonly<Record<string, unknown>> | null): Customer | null {
  if (!given) return null;
  const customer: Record<string, string> = {};
  for (const field of Object.keys(CUSTOMER_LIMITS) as (keyof typeof CUSTOMER_LIMITS)[]) {
    const value = given[field];
    if (typeof value !== 'string' || value.trim() === '') continue;
    const bad =
      value.length > CUSTOMER_LIMITS[field] ||
      (field === 'email' && !/^[^\s@]+@[^\s@]+$/.test(value)) ||
      (field === 'phone' && !PHONE.test(value));
    if (bad)
      throw new DomainError(
        'INVALID_ARGUMENTS',
        `customer.${field}: not a valid ${field} (the agent's result)`,
        {
          field: `customer.${field}`,
        },
      );
    customer[field] = value;
  }
  return Object.keys(customer).length > 0 ? (customer as Customer) : null;
}
