import { z } from 'zod';
import { bookingStatuses } from '../../domain/booking/booking.js';
import { errorCodes } from '../../domain/errors.js';

/** Input and output shapes published to clients; inputs are strict (unknown fields rejected, no coercion). */
export const instantInput = z.iso
  .datetime({
    offset: true,
    error:
      'must be an RFC 3339 date-time with an offset, e.g. 2026-12-01T09:00:00Z or 2026-12-01T10:00:00+01:00',
  })
  .describe('Date-time with its offset (Z or ±HH:MM), e.g. 2026-12-03T09:00:00+01:00.');
export const idempotencyKey = z.uuid({ error: 'must be a UUID; reuse it only to retry the same call' });
export const calendarIdsInput = z
  .array(z.string().min(1).max(100))
  .min(1)
  .max(10)
  .describe('One or more calendar ids; all must be free at the same time.');
export const calendarQueryInput = z
  .string()
  .min(1)
  .max(200)
  .describe(
    'Words a calendar name, description or tags must all hold (case and accents ignored), e.g. "dermatology".',
  );
export const bookingIdInput = z.string().min(1).max(100);
export const expectedVersion = z
  .int()
  .min(1)
  .describe('The booking version you last read; the change fails with VERSION_CONFLICT if it moved.');

const hhmm = z.string().max(5).describe('Wall-clock time HH:MM in the calendar time zone; end may be 24:00');
const timeWindow = z.strictObject({ start: hhmm, end: hhmm });
const windows = z.array(timeWindow).max(12);
export const weeklyHours = z
  .strictObject({
    mon: windows.optional(),
    tue: windows.optional(),
    wed: windows.optional(),
    thu: windows.optional(),
    fri: windows.optional(),
    sat: windows.optional(),
    sun: windows.optional(),
  })
  .describe('Opening hours per weekday; a missing day is closed.');
export const dateOverrides = z
  .array(
    z.strictObject({
      date: z.string().max(10).describe('Local date YYYY-MM-DD'),
      windows: windows.describe('Hours for that date; [] closes the whole day.'),
    }),
  )
  .max(366);
export const availabilitySchema = z.strictObject({ weekly: weeklyHours, overrides: dateOverrides });
/**
 * Customer details by schema, so redaction can be by schema: known contact fields plus a small,
 * flat map of extras. Stored and returned exactly as given.
 */
export const customerInput = z
  .strictObject({
    name: z.string().min(1).max(200).optional(),
    email: z.email().max(254).optional(),
    phone: z
      .string()
      .min(3)
      .max(40)
      .regex(/^[+()0-9 ./-]+$/, 'digits, spaces and + ( ) . / - only')
      .optional()
      .describe('As the customer gave it, e.g. "+49 30 1234567"'),
    notes: z.string().max(2000).optional(),
    locale: z
      .string()
      .max(35)
      .regex(/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/, 'a BCP 47 language tag, e.g. "de-AT"')
      .optional(),
    extra: z
      .record(z.string().min(1).max(64), z.union([z.string().max(500), z.number(), z.boolean()]))
      .refine((o) => Object.keys(o).length <= 20, 'at most 20 extra fields')
      .meta({ maxProperties: 20 })
      .optional()
      .describe('Up to 20 more flat fields (string up to 500 characters, number or boolean).'),
  })
  .describe(
    'Customer details; stored and returned exactly as given. Contact data is never audited in clear.',
  );

export const moneySchema = z.strictObject({
  amount: z.string().max(17).describe('Decimal string, e.g. "500.00"; never a float'),
  currency: z.string().max(3).describe('ISO 4217 code, e.g. "CNY"'),
});

export const instantOut = z.string().describe('UTC, RFC 3339');
const localTime = z.object({ timeZone: z.string(), start: z.string(), end: z.string() });
const calendarRef = z.object({ id: z.string(), name: z.string(), timeZone: z.string() });

const minutes = (max: number) => z.int().min(0).max(max);
const cap = (max: number) => z.int().min(1).max(max).nullable();

/** Each rule of set_booking_rules; one left out takes its default. */
export const bookingRulesFields = {
  bufferBeforeMinutes: minutes(720).optional().describe('Busy time before each booking (default 0).'),
  bufferAfterMinutes: minutes(720).optional().describe('Busy time after each booking (default 0).'),
  minimumNoticeMinutes: minutes(366 * 24 * 60)
    .optional()
    .describe('How long before its start a booking may be made at the latest (default 0).'),
  maximumHorizonDays: z
    .int()
    .min(1)
    .max(3650)
    .optional()
    .describe('How far ahead a booking may start (default 365).'),
  slotStepMinutes: z
    .int()
    .min(1)
    .max(1440)
    .nullable()
    .optional()
    .describe('Starts on this grid from local midnight; null: any (default).'),
  allowedDurationsMinutes: z
    .array(
      z
        .int()
        .min(1)
        .max(7 * 24 * 60),
    )
    .min(1)
    .max(24)
    .nullable()
    .optional()
    .describe('The only lengths offered; null: any (default).'),
  maxBookingsPerDay: cap(10_000)
    .optional()
    .describe('Per local day on this calendar; null: no limit (default).'),
  maxBookingsPerWeek: cap(70_000)
    .optional()
    .describe('Per local Monday-to-Sunday week; null: no limit (default).'),
  maxBookingsPerCustomerPerDay: cap(10_000)
    .optional()
    .describe('Per customer (e-mail, else phone) and local day.'),
  maxBookingsPerCustomerPerWeek: cap(70_000).optional().describe('Per customer and local week.'),
  capacity: z
    .int()
    .min(1)
    .max(1000)
    .optional()
    .describe('How many bookings may overlap: seats of a class, rooms of a pool (default 1).'),
  offerAlternatives: z
    .boolean()
    .optional()
    .describe('false: a refused hold offers no alternative times (no counter-offers); default true.'),
};

const bookingRulesOut = z.object({
  bufferBeforeMinutes: z.int(),
  bufferAfterMinutes: z.int(),
  minimumNoticeMinutes: z.int(),
  maximumHorizonDays: z.int(),
  slotStepMinutes: z.int().nullable(),
  allowedDurationsMinutes: z.array(z.int()).nullable(),
  maxBookingsPerDay: z.int().nullable(),
  maxBookingsPerWeek: z.int().nullable(),
  maxBookingsPerCustomerPerDay: z.int().nullable(),
  maxBookingsPerCustomerPerWeek: z.int().nullable(),
  capacity: z.int(),
  offerAlternatives: z.boolean(),
});

export const calendarOut = z.object({
  id: z.string(),
  name: z.string(),
  timeZone: z.string(),
  price: moneySchema.nullable(),
  availability: availabilitySchema,
  rules: bookingRulesOut,
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
});

export const slotOut = z.object({
  start: instantOut,
  end: instantOut,
  calendarId: z
    .string()
    .optional()
    .describe('With query: the one calendar free then; hold it with calendarIds [calendarId].'),
  local: z
    .record(z.string(), z.string())
    .describe('The start on the wall clock of each time zone among the calendars, keyed by zone.'),
});

export const bookingOut = z.object({
  id: z.string(),
  reference: z.string(),
  status: z.enum(bookingStatuses),
  version: z.int(),
  calendarIds: z.array(z.string()),
  calendars: z.array(calendarRef),
  start: instantOut,
  end: instantOut,
  local: z.array(localTime),
  expiresAt: instantOut.nullable(),
  customer: z.record(z.string(), z.unknown()).nullable(),
  label: z.string().nullable(),
  price: moneySchema.nullable(),
  payment: z
    .object({
      status: z.string(),
      paidAt: instantOut.nullable(),
      reconciliationRequired: z.boolean(),
      refund: z
        .object({
          status: z.enum(['DUE', 'RETURNED']),
          amount: z.string(),
          currency: z.string(),
          dueAt: instantOut,
          returnedAt: instantOut.nullable(),
        })
        .nullable()
        .describe('Money owed back after a paid booking was cancelled; a person settles it.'),
    })
    .nullable(),
  paymentUrl: z.string().nullable().describe('Where the customer pays, for priced bookings.'),
  confirmationIntent: z
    .object({ intent: z.record(z.string(), z.unknown()), intentHash: z.string() })
    .nullable()
    .describe(
      'For HELD bookings: exactly what confirm_booking will do, and its hash. Show it to the user before confirming.',
    ),
  replaces: z
    .string()
    .nullable()
    .describe(
      'A replacement hold from reschedule_booking: the booking that confirming it moves (and cancels).',
    ),
  seriesId: z
    .string()
    .nullable()
    .describe(
      'One occurrence of a recurring series (hold_series): confirm_booking confirms them all; cancel_booking with scope following ends this one and the later ones.',
    ),
  customerErased: z
    .boolean()
    .optional()
    .describe('true: the customer’s details were erased (on request or by retention) and are gone for good.'),
  calendarOverlaps: z
    .array(z.object({ start: instantOut, end: instantOut }))
    .optional()
    .describe(
      'get_booking of a CONFIRMED booking: events in the calendar’s connected CalDAV calendar that overlap it (added there after it was booked). The booking stands; tell the person.',
    ),
  receiptUri: z
    .string()
    .nullable()
    .describe(
      'CONFIRMED: the resource holding its signed receipt (a JWS any JOSE library verifies against the server’s published keys).',
    ),
  owner: z.object({ subject: z.string(), clientId: z.string() }),
  externalKeys: z.record(z.string(), z.string()),
  createdAt: instantOut,
  updatedAt: instantOut,
});

const meta = z.object({
  traceId: z.string(),
  spanId: z.string().optional(),
  operationId: z.string(),
  serverTime: instantOut,
  /** The client's clock as it said (`_meta.clientSentAt`); absent when it did not. */
  clientSentAt: z.string().optional(),
  serverReceivedAt: instantOut.optional(),
  serverResultCreatedAt: instantOut.optional(),
  idempotentReplay: z.boolean().optional(),
  /** find_slots: HIT when the free times came from the slot cache, MISS when searched now. */
  cache: z.enum(['HIT', 'MISS', 'BYPASS']).optional(),
});

const toolError = z.object({
  code: z.enum(errorCodes as [string, ...string[]]),
  message: z.string(),
  retryable: z.boolean(),
  details: z.record(z.string(), z.unknown()),
  recovery: z.object({ action: z.string() }),
});

/** The one envelope every tool answers with: `ok` plus `data`, or `error`. */
/** `stable`: a successful answer leaves the per-call meta out (the catalog's cacheable answers). */
export function envelopeOf(data: z.ZodType, { stable = false } = {}) {
  return z.object({
    ok: z.boolean(),
    data: data.optional(),
    error: toolError.optional(),
    meta: stable ? meta.optional() : meta,
  });
}

export const approvalProof = z
  .strictObject({ approvalId: z.uuid() })
  .describe(
    'A decision a person made on the approval page or CLI (from APPROVAL_REQUIRED details.approvalId).',
  );

export const humanApprovalInput = z
  .strictObject({
    hostId: z
      .string()
      .min(1)
      .max(64)
      .regex(/^host_[A-Za-z0-9_-]+$/),
    approvalId: z.uuid(),
    approvedAt: instantInput,
    intentHash: z.string().max(80),
    signature: z
      .string()
      .max(200)
      .regex(/^[A-Za-z0-9_-]+$/),
  })
  .describe(
    'Set only by the host application, never by the model: an Ed25519 signature made with the key of a host registered with holdfast hosts add. Anything else is refused.',
  );
