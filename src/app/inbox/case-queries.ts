import type { Booking } from '../../domain/booking/booking.js';
import { effectiveStatus } from '../../domain/booking/booking.js';
import type { KeyKind, KeyRow } from '../../domain/booking/business-keys.js';
import { keyRowsOf } from '../../domain/booking/business-keys.js';
import type { Principal } from '../../domain/identity/principal.js';
import type { InboxTask, TaskStatus } from '../../domain/inbox/inbox.js';
import { TASK_STATUSES } from '../../domain/inbox/inbox.js';
import { InboxError } from '../../domain/inbox/inbox-errors.js';
import type { StoreTx } from '../../ports/store/index.js';
import { requireScope } from '../authorize.js';
import type { AppDeps } from '../deps.js';
import { readTaskDetail } from './task-detail.js';

export interface CaseKeys {
  readonly groupCode?: string | null;
  readonly confirmationNumber?: string | null;
  readonly reservationNo?: string | null;
}

export interface MatchedBooking {
  readonly booking: Booking;
  /** Which of the asked keys found it. */
  readonly matchedBy: readonly KeyKind[];
  readonly canUpdate: boolean;
  readonly canCancel: boolean;
  readonly warnings: readonly string[];
}

export interface TargetValidation {
  readonly canCreate: boolean;
  readonly canUpdate: boolean;
  readonly canCancel: boolean;
  readonly canAttachEvidence: boolean;
  readonly targetObjectId: string | null;
  /** An open create task for these keys: a second create would make the same booking twice. */
  readonly openCreateTaskId: string | null;
  readonly reasons: readonly string[];
}

export interface CaseContext {
  readonly matched: readonly MatchedBooking[];
  readonly groups: readonly { code: string; bookingIds: readonly string[] }[];
  readonly openTasks: readonly { task: InboxTask; externalSourceMessageId: string | null }[];
  readonly validation: TargetValidation;
  readonly warnings: readonly string[];
}

const OPEN: readonly TaskStatus[] = [
  'PENDING_CONFIRMATION',
  'CONFIRMING',
  'AWAITING_APPROVAL',
  'CONTRACT_ERROR',
];

export const orderObjectId = (bookingId: string) => `ORDER:${bookingId}`;

/** What people may still do to a booking the inbox found, and what stands in the way. */
export function bookingState(booking: Booking, now: number): Omit<MatchedBooking, 'booking' | 'matchedBy'> {
  const status = effectiveStatus(booking, now);
  const live = status === 'HELD' || status === 'CONFIRMED';
  const warnings = [
    ...(status === 'EXPIRED' ? ['HOLD_LAPSED'] : []),
    ...(booking.payment?.reconciliationRequired ? ['PAYMENT_RECONCILIATION_REQUIRED'] : []),
    ...(live && booking.end <= now ? ['BOOKING_IN_THE_PAST'] : []),
    ...(!live ? [`BOOKING_${status}`] : []),
  ];
  return { canUpdate: live, canCancel: live && booking.end > now, warnings };
}

function keyRows(keys: CaseKeys): KeyRow[] {
  return keyRowsOf({
    ...(keys.confirmationNumber ? { confirmationNumber: keys.confirmationNumber.trim() } : {}),
    ...(keys.groupCode ? { groupCode: keys.groupCode.trim() } : {}),
    ...(keys.reservationNo ? { externalReservationNumber: keys.reservationNo.trim() } : {}),
  });
}

async function bookingsById(tx: StoreTx, tenantId: string, ids: readonly string[]): Promise<Booking[]> {
  const found: Booking[] = [];
  for (const id of ids.slice(0, 200)) {
    const booking = await tx.bookings.get(tenantId, id);
    if (booking) found.push(booking);
  }
  return found;
}

async function externalIdOf(tx: StoreTx, tenantId: string, messageId: string): Promise<string | null> {
  return (await tx.inbox.message(tenantId, messageId))?.externalId ?? null;
}

/**
 * Bookings and groups of the tenant carrying any of the keys, the tasks still open on them, and
 * whether a result may create, update or cancel. Only exact keys match: this is not a search.
 * Keys read only from a thread's history are evidence: nothing may be decided on them alone.
 */
export async function caseContext(
  deps: AppDeps,
  principal: Principal,
  keys: CaseKeys,
  options: { threadEvidenceOnly: boolean },
): Promise<CaseContext> {
  requireScope(principal, 'read');
  const rows = keyRows(keys);
  if (rows.length === 0)
    throw new InboxError(
      'CASE_KEY_REQUIRED',
      'Give at least one of group_code, confirmation_number or reservation_no.',
      { field: 'group_code' },
    );
  return deps.store.read(async (tx) => {
    const now = deps.clock.now();
    const found = new Map<string, KeyKind[]>();
    const groups: { code: string; bookingIds: string[] }[] = [];
    for (const row of rows) {
      const ids = await tx.inbox.bookingsWithKey(principal.tenantId, row.kind, row.value);
      for (const id of ids) found.set(id, [...(found.get(id) ?? []), row.kind]);
      if (row.kind === 'group' && ids.length > 0) groups.push({ code: row.value, bookingIds: ids });
    }
    const bookings = await bookingsById(tx, principal.tenantId, [...found.keys()]);
    const matched = bookings.map((booking) => ({
      booking,
      matchedBy: found.get(booking.id) ?? [],
      ...bookingState(booking, now),
    }));
    const tasks = await tx.inbox.tasksAbout(
      principal.tenantId,
      { objectIds: matched.map((m) => orderObjectId(m.booking.id)), keys: rows },
      OPEN,
    );
    const openTasks = [];
    for (const task of tasks)
      openTasks.push({
        task,
        externalSourceMessageId: await externalIdOf(tx, principal.tenantId, task.messageId),
      });
    const warnings = [
      ...(options.threadEvidenceOnly ? ['KEY_FROM_THREAD_HISTORY_IS_EVIDENCE_ONLY'] : []),
      ...(openTasks.length > 0 ? ['OPEN_TASKS_EXIST'] : []),
      ...matched.flatMap((m) => m.warnings.map((w) => `${orderObjectId(m.booking.id)}:${w}`)),
    ];
    const openCreate = tasks.find(
      (t) => t.kind === 'task' && readTaskDetail(t.detail).eventType === 'reservation.create',
    );
    const validation = validate(rows, matched, options, openCreate?.id ?? null);
    return { matched, groups, openTasks, validation, warnings };
  });
}

function validate(
  rows: readonly KeyRow[],
  matched: readonly MatchedBooking[],
  options: { threadEvidenceOnly: boolean },
  openCreateTaskId: string | null,
): TargetValidation {
  if (options.threadEvidenceOnly)
    return {
      canCreate: false,
      canUpdate: false,
      canCancel: false,
      canAttachEvidence: matched.length > 0,
      targetObjectId: null,
      openCreateTaskId,
      reasons: [
        'Keys taken from earlier mail in the thread are evidence only; confirm them in the current mail.',
      ],
    };
  const uniqueKeyAsked = rows.some((r) => r.kind !== 'group');
  const single = matched.length === 1 ? matched[0]! : null;
  const reasons: string[] = [];
  if (matched.length === 0) reasons.push('No booking carries these keys: a result may create one.');
  if (matched.length > 1)
    reasons.push('Several bookings match: name one by confirmation or reservation number.');
  if (single && !single.canUpdate) reasons.push(`The booking is ${single.warnings.join(', ')}.`);
  if (openCreateTaskId !== null)
    reasons.push(
      `Task ${openCreateTaskId} already asks a person to create a booking for these keys: do not create another.`,
    );
  return {
    // A confirmation or reservation number already in use cannot name a second booking.
    canCreate: openCreateTaskId === null && (matched.length === 0 || !uniqueKeyAsked),
    openCreateTaskId,
    canUpdate: single?.canUpdate ?? false,
    canCancel: single?.canCancel ?? false,
    canAttachEvidence: matched.length > 0,
    targetObjectId: single ? orderObjectId(single.booking.id) : null,
    reasons,
  };
}

export interface ObjectDetail {
  readonly objectId: string;
  readonly kind: 'ORDER' | 'GROUP';
  readonly bookings: readonly MatchedBooking[];
  readonly sourceMessages: readonly { externalId: string; provider: string; channel: string }[];
}

const OBJECT_ID = /^(ORDER|GROUP):([\x21-\x7e]{1,64})$/;

/**
 * One booking (`ORDER:<booking id>`) or group (`GROUP:<group code>`). A booking is found when
 * it is the caller's own or carries a business key (it is part of the hotel's case files);
 * other bookings of the tenant stay as unknown as made-up ids.
 */
export async function objectDetail(
  deps: AppDeps,
  principal: Principal,
  objectId: string,
): Promise<ObjectDetail> {
  requireScope(principal, 'read');
  const match = OBJECT_ID.exec(objectId.trim());
  if (!match)
    throw new InboxError(
      'INVALID_OBJECT_ID',
      'object_id must look like ORDER:{order_id} or GROUP:{group_code}.',
      {
        field: 'object_id',
      },
    );
  const [, kind, id] = match as unknown as [string, 'ORDER' | 'GROUP', string];
  return deps.store.read(async (tx) => {
    const now = deps.clock.now();
    const ids = kind === 'GROUP' ? await tx.inbox.bookingsWithKey(principal.tenantId, 'group', id) : [id];
    const bookings = (await bookingsById(tx, principal.tenantId, ids)).filter(
      (b) =>
        kind === 'GROUP' || b.owner.subject === principal.subject || keyRowsOf(b.externalKeys).length > 0,
    );
    if (bookings.length === 0)
      throw new InboxError('OBJECT_NOT_FOUND', `No object ${objectId}.`, { object_id: objectId });
    const tasks = await tx.inbox.tasksAbout(
      principal.tenantId,
      { objectIds: bookings.map((b) => orderObjectId(b.id)), keys: [] },
      TASK_STATUSES,
    );
    const sources = new Map<string, { externalId: string; provider: string; channel: string }>();
    for (const t of tasks) {
      const m = await tx.inbox.message(principal.tenantId, t.messageId);
      if (m) sources.set(m.id, { externalId: m.externalId, provider: m.provider, channel: m.channel });
    }
    return {
      objectId: `${kind}:${id}`,
      kind,
      bookings: bookings.map((booking) => ({
        booking,
        matchedBy: [],
        ...bookingState(booking, now),
      })),
      sourceMessages: [...sources.values()],
    };
  });
}
