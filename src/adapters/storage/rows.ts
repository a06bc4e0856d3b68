import type { Approval } from '../../domain/approval/approval.js';
import type { IdempotencyRecord } from '../../ports/store/index.js';
import type { Availability } from '../../domain/availability/availability.js';
import type { Booking, BookingStatus, PaymentState } from '../../domain/booking/booking.js';
import type { Calendar } from '../../domain/calendar.js';
import type { BookingRules } from '../../domain/availability/booking-rules.js';
import { completeRules, customerKey } from '../../domain/availability/booking-rules.js';

/** Column values shared by the SQL adapters: instants are integer epoch milliseconds (UTC). */
export interface CalendarRow {
  tenant_id: string;
  id: string;
  name: string;
  time_zone: string;
  price_amount: string | null;
  price_currency: string | null;
  availability: string;
  created_at: number | string;
  version: number;
  /** JSON of the rules that differ from the defaults; NULL: all defaults. */
  booking_rules: string | null;
  description?: string | null;
  /** JSON array of tags; NULL: none. */
  tags?: string | null;
}

export interface BookingRow {
  tenant_id: string;
  id: string;
  reference: string;
  calendar_ids: string;
  start_at: number | string;
  end_at: number | string;
  status: string;
  version: number;
  created_at: number | string;
  updated_at: number | string;
  expires_at: number | string | null;
  customer: string | null;
  label: string | null;
  price_amount: string | null;
  price_currency: string | null;
  payment: string | null;
  owner_subject: string;
  owner_client: string;
  owner_connection: string;
  external_keys: string;
  /** 0/1 on both engines (PostgreSQL reads '1' as true). */
  payment_follow_up: number | boolean;
  /** Who per-customer limits count this booking for (derived from the customer). */
  customer_key: string | null;
  replaces: string | null;
  series_id: string | null;
  change_set_id: string | null;
}

export const num = (v: number | string): number => Number(v);
/** A nullable number column (PostgreSQL gives bigints as strings). */
export const numOrNull = (v: number | string | null): number | null => (v === null ? null : Number(v));

// Calendars are read on every slot search; parse each distinct availability document once.
const parsedAvailability = new Map<string, Availability>();
function availabilityOf(json: string): Availability {
  let parsed = parsedAvailability.get(json);
  if (!parsed) {
    if (parsedAvailability.size >= 10_000) parsedAvailability.clear();
    parsedAvailability.set(json, (parsed = JSON.parse(json) as Availability));
  }
  return parsed;
}

export function calendarFromRow(row: CalendarRow): Calendar {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    timeZone: row.time_zone,
    price:
      row.price_amount !== null && row.price_currency !== null
        ? { amount: row.price_amount, currency: row.price_currency }
        : null,
    availability: availabilityOf(row.availability),
    createdAt: num(row.created_at),
    version: Number(row.version),
    ...(row.booking_rules === null
      ? {}
      : { rules: completeRules(JSON.parse(row.booking_rules) as Partial<BookingRules>) }),
    ...(row.description ? { description: row.description } : {}),
    ...(row.tags ? { tags: JSON.parse(row.tags) as string[] } : {}),
  };
}

export function calendarToRow(c: Calendar): CalendarRow {
  return {
    tenant_id: c.tenantId,
    id: c.id,
    name: c.name,
    time_zone: c.timeZone,
    price_amount: c.price?.amount ?? null,
    price_currency: c.price?.currency ?? null,
    availability: JSON.stringify(c.availability),
    created_at: c.createdAt,
    version: c.version,
    booking_rules: c.rules === undefined ? null : JSON.stringify(c.rules),
    description: c.description ?? null,
    tags: c.tags && c.tags.length > 0 ? JSON.stringify(c.tags) : null,
  };
}

export function bookingFromRow(row: BookingRow): Booking {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    reference: row.reference,
    calendarIds: JSON.parse(row.calendar_ids) as string[],
    start: num(row.start_at),
    end: num(row.end_at),
    status: row.status as BookingStatus,
    version: Number(row.version),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
    expiresAt: row.expires_at === null ? null : num(row.expires_at),
    customer: row.customer === null ? null : (JSON.parse(row.customer) as Booking['customer']),
    label: row.label,
    price:
      row.price_amount !== null && row.price_currency !== null
        ? { amount: row.price_amount, currency: row.price_currency }
        : null,
    payment: row.payment === null ? null : (JSON.parse(row.payment) as PaymentState),
    owner: { subject: row.owner_subject, clientId: row.owner_client, connectionId: row.owner_connection },
    externalKeys: JSON.parse(row.external_keys) as Booking['externalKeys'],
    paymentFollowUp: Boolean(row.payment_follow_up),
    ...(row.replaces ? { replaces: row.replaces } : {}),
    ...(row.series_id ? { seriesId: row.series_id } : {}),
    ...(row.change_set_id ? { changeSetId: row.change_set_id } : {}),
  };
}

export function bookingToRow(b: Booking): BookingRow {
  return {
    tenant_id: b.tenantId,
    id: b.id,
    reference: b.reference,
    calendar_ids: JSON.stringify(b.calendarIds),
    start_at: b.start,
    end_at: b.end,
    status: b.status,
    version: b.version,
    created_at: b.createdAt,
    updated_at: b.updatedAt,
    expires_at: b.expiresAt,
    customer: b.customer === null ? null : JSON.stringify(b.customer),
    label: b.label,
    price_amount: b.price?.amount ?? null,
    price_currency: b.price?.currency ?? null,
    payment: b.payment === null ? null : JSON.stringify(b.payment),
    owner_subject: b.owner.subject,
    owner_client: b.owner.clientId,
    owner_connection: b.owner.connectionId,
    external_keys: JSON.stringify(b.externalKeys),
    payment_follow_up: b.paymentFollowUp ? 1 : 0,
    customer_key: customerKey(b.customer),
    replaces: b.replaces ?? null,
    series_id: b.seriesId ?? null,
    change_set_id: b.changeSetId ?? null,
  };
}

export interface ApprovalRow {
  tenant_id: string;
  id: string;
  subject: string;
  client_id: string;
  action: string;
  booking_id: string;
  intent: string;
  intent_hash: string;
  status: string;
  created_at: number | string;
  expires_at: number | string;
  decided_at: number | string | null;
  decided_by: string | null;
  burned_reason: string | null;
  standing_rule_id?: string | null;
  window_ms?: number | string | null;
  hold_fixed?: number | boolean | null;
  executes?: number | boolean | null;
  last_failure?: string | null;
  requester_note?: string | null;
  connection_id?: string | null;
}

export function approvalFromRow(row: ApprovalRow): Approval {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    subject: row.subject,
    clientId: row.client_id,
    action: row.action as Approval['action'],
    bookingId: row.booking_id,
    intent: JSON.parse(row.intent) as Approval['intent'],
    intentHash: row.intent_hash,
    status: row.status as Approval['status'],
    createdAt: num(row.created_at),
    expiresAt: num(row.expires_at),
    decidedAt: row.decided_at === null ? null : num(row.decided_at),
    decidedBy: row.decided_by,
    burnedReason: row.burned_reason,
    ...(row.standing_rule_id ? { standingRuleId: row.standing_rule_id } : {}),
    ...(row.window_ms !== null && row.window_ms !== undefined ? { windowMs: num(row.window_ms) } : {}),
    ...(row.hold_fixed ? { holdFixed: true } : {}),
    ...(row.executes ? { executes: true } : {}),
    ...(row.last_failure ? { lastFailure: row.last_failure } : {}),
    ...(row.requester_note ? { requesterNote: row.requester_note } : {}),
    ...(row.connection_id ? { connectionId: row.connection_id } : {}),
  };
}

export function approvalToRow(a: Approval): ApprovalRow {
  return {
    tenant_id: a.tenantId,
    id: a.id,
    subject: a.subject,
    client_id: a.clientId,
    action: a.action,
    booking_id: a.bookingId,
    intent: JSON.stringify(a.intent),
    intent_hash: a.intentHash,
    status: a.status,
    created_at: a.createdAt,
    expires_at: a.expiresAt,
    decided_at: a.decidedAt,
    decided_by: a.decidedBy,
    burned_reason: a.burnedReason,
    standing_rule_id: a.standingRuleId ?? null,
    window_ms: a.windowMs ?? null,
    hold_fixed: a.holdFixed ? 1 : 0,
    executes: a.executes ? 1 : 0,
    last_failure: a.lastFailure ?? null,
    requester_note: a.requesterNote ?? null,
    connection_id: a.connectionId ?? null,
  };
}

/** idempotency columns in table order: tenant_id, subject, tool, key, arguments_digest, result, created_at, expires_at. */
export function idempotencyValues(
  record: IdempotencyRecord,
  result: string = JSON.stringify(record.result),
): unknown[] {
  return [
    record.tenantId,
    record.subject,
    record.tool,
    record.key,
    record.argumentsDigest,
    result,
    record.createdAt,
    record.expiresAt,
  ];
}
