import type { Customer } from '../../domain/booking/booking.js';
import type { Principal } from '../../domain/identity/principal.js';
import { DomainError, isDomainError } from '../../domain/errors.js';
import type { Person, Tenant } from '../../domain/identity/identity.js';
import { mayApprove, scopesOfRole } from '../../domain/identity/identity.js';
import type { InboxTask, TaskStatus } from '../../domain/inbox/inbox.js';
import { mayMove } from '../../domain/inbox/inbox.js';
import type { EffectAudit } from '../../ports/audit.js';
import type { StoreTx } from '../../ports/store/index.js';
import { decideInConsole } from '../approvals/approvals.js';
import { endBookingAs } from '../console/bookings.js';
import type { AppDeps } from '../deps.js';
import { gatedBookingChange } from '../booking/gated-booking.js';
import { holdSlot } from '../booking/hold-slot.js';
import { loadBooking } from '../booking/snapshot.js';
import type { KeyChange } from './business-keys.js';
import { requireKeysFree, setKeysIn } from './business-keys.js';
import { orderObjectId } from './case-queries.js';
import type { TaskDetail } from './task-detail.js';
import { readTaskDetail, taskCustomer } from './task-detail.js';

/**
 * A person decides a task in the console. Confirming never goes around Holdfast's rules: a new
 * reservation is held as the person, then waits for an approval of that exact booking, then is
 * confirmed (with its payment, if priced); a cancellation is the console's own cancel. Each
 * decision first claims the task (CONFIRMING, at the version shown), so two people — or one
 * person's Confirm and Reject pressed together — cannot both act on it; work that fails is
 * undone and the task goes back to where it was.
 */

/** The console as an agent connection of the deciding person: their role's scopes, policy draft. */
export function consolePrincipal(person: Person, tenant: Tenant): Principal {
  return {
    tenantId: person.tenantId,
    subject: person.id,
    clientId: `console inbox · ${person.email}`,
    connectionId: 'console-inbox',
    scopes: scopesOfRole(person.role),
    writePolicy: 'draft',
    limits: tenant.limits,
  };
}

/** The same task confirmed twice holds once: its idempotency keys come from its id. */
function keyFor(deps: AppDeps, task: InboxTask, step: string): string {
  const hex = deps.digest.ofJson({ task: task.id, step }).replace(/^sha256:/, '');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export interface TaskCall {
  readonly audit?: EffectAudit;
  readonly traceId: string;
}

/** A claim older than this was left by a process that died mid-way: it may be rejected. */
const STALE_CLAIM_MS = 60_000;

async function loadTask(tx: StoreTx, person: Person, id: string): Promise<InboxTask> {
  const task = await tx.inbox.task(person.tenantId, id);
  if (!task) throw new DomainError('NOT_FOUND', `No task ${id}.`, {});
  return task;
}

async function move(
  deps: AppDeps,
  person: Person,
  task: InboxTask,
  to: TaskStatus,
  change: Partial<Pick<InboxTask, 'objectId' | 'approvalId' | 'note'>> = {},
): Promise<InboxTask> {
  if (!mayMove(task.status, to))
    throw new DomainError(
      'INVALID_STATE',
      `A ${task.status.toLowerCase()} task cannot become ${to.toLowerCase()}.`,
      {},
    );
  const next: InboxTask = {
    ...task,
    ...change,
    status: to,
    version: task.version + 1,
    decidedBy: person.id,
    decidedAt: deps.clock.now(),
  };
  const moved = await deps.store.write((tx) => tx.inbox.updateTask(next, task.version));
  if (!moved) throw new DomainError('INVALID_STATE', 'The task changed meanwhile; reload it.', {});
  return next;
}

/** The task a person may decide, at the version they were shown, with their tenant. */
async function decidable(deps: AppDeps, person: Person, taskId: string, expectedVersion: number | null) {
  if (!mayApprove(person))
    throw new DomainError('FORBIDDEN', 'Only owners and approvers may confirm or reject tasks.', {});
  const found = await deps.store.read(async (tx) => ({
    task: await loadTask(tx, person, taskId),
    tenant: await tx.tenants.getTenant(person.tenantId),
  }));
  if (expectedVersion !== null && found.task.version !== expectedVersion)
    throw new DomainError('INVALID_STATE', 'The task changed since the page was drawn; reload it.', {});
  if (!found.tenant) throw new DomainError('NOT_FOUND', 'No such tenant.', {});
  return { task: found.task, tenant: found.tenant };
}

/** Runs `work` on a claimed task; if it fails, `undo` runs and the task goes back to `from`. */
async function claimed<T>(
  deps: AppDeps,
  person: Person,
  task: InboxTask,
  work: (claim: InboxTask) => Promise<T>,
  undo: () => Promise<void> = async () => undefined,
): Promise<T> {
  const claim = await move(deps, person, task, 'CONFIRMING');
  try {
    return await work(claim);
  } catch (error) {
    await undo().catch(() => undefined);
    await move(deps, person, claim, task.status).catch(() => undefined);
    throw error;
  }
}

/** Gives a booking's time back if it is still only held: a task that will not go on leaves none behind. */
async function releaseIfHeld(deps: AppDeps, person: Person, bookingId: string): Promise<void> {
  const booking = await deps.store.read((tx) => loadBooking(tx, person.tenantId, bookingId));
  if (booking.status === 'HELD') await endBookingAs(deps, person, booking.id, 'release', booking.version);
}

/** The booking a cancel or update task names: resolved and checked when it was submitted. */
async function targetOf(deps: AppDeps, person: Person, task: InboxTask) {
  if (!task.objectId?.startsWith('ORDER:'))
    throw new DomainError('INVALID_STATE', 'This task names no booking; reject it.', {});
  const id = task.objectId.slice('ORDER:'.length);
  return deps.store.read((tx) => loadBooking(tx, person.tenantId, id));
}

/** The keys a task gives its booking: the booking's own, else the case's. */
function keysOf(detail: TaskDetail, withCaseKeys: boolean): KeyChange {
  const b = detail.booking;
  const pick = (own: string | null | undefined, fromCase: string | null) =>
    own ?? (withCaseKeys ? fromCase : null);
  const confirmation = pick(b?.confirmationNumber, detail.caseKeys.confirmationNumber);
  const group = pick(b?.groupCode, detail.caseKeys.groupCode);
  const reservation = pick(b?.reservationNo, detail.caseKeys.reservationNo);
  return {
    ...(confirmation ? { confirmationNumber: confirmation } : {}),
    ...(group ? { groupCode: group } : {}),
    ...(reservation ? { externalReservationNumber: reservation } : {}),
  };
}

/** Confirms a task: what it asks is done (or, for a new booking, held and put up for approval). */
export async function confirmTask(
  deps: AppDeps,
  person: Person,
  taskId: string,
  expectedVersion: number,
  call: TaskCall,
): Promise<InboxTask> {
  const { task, tenant } = await decidable(deps, person, taskId, expectedVersion);
  if (task.status !== 'PENDING_CONFIRMATION')
    throw new DomainError('INVALID_STATE', `A ${task.status.toLowerCase()} task cannot be confirmed.`, {});
  const detail = readTaskDetail(task.detail);
  if (detail.eventType === 'reservation.create' && detail.booking)
    return holdForApproval(deps, person, tenant, task, detail, call);
  if (detail.eventType === 'reservation.cancel')
    return claimed(deps, person, task, async (claim) => {
      const booking = await targetOf(deps, person, claim);
      await endBookingAs(
        deps,
        person,
        booking.id,
        booking.status === 'HELD' ? 'release' : 'cancel',
        booking.version,
      );
      return move(deps, person, claim, 'CONFIRMED');
    });
  if (detail.eventType === 'reservation.update')
    return claimed(deps, person, task, async (claim) => {
      const booking = await targetOf(deps, person, claim);
      const change = keysOf(detail, false);
      if (Object.keys(change).length > 0)
        await deps.store.write(async (tx) =>
          setKeysIn(deps, tx, await loadBooking(tx, person.tenantId, booking.id), change, booking.version),
        );
      return move(deps, person, claim, 'CONFIRMED');
    });
  // Information, manual reviews and tasks without a booking to make: the person has seen to it.
  return claimed(deps, person, task, (claim) => move(deps, person, claim, 'CONFIRMED'));
}

/** Holds the new reservation as the person, gives it its keys and opens an approval of exactly it. */
async function holdForApproval(
  deps: AppDeps,
  person: Person,
  tenant: Tenant,
  task: InboxTask,
  detail: TaskDetail,
  call: TaskCall,
): Promise<InboxTask> {
  const b = detail.booking!;
  const keys = keysOf(detail, true);
  const customer: Customer | null = taskCustomer(b.customer);
  // Refused before anything is held: a number another live booking carries.
  await deps.store.read((tx) => requireKeysFree(tx, person.tenantId, keys, null, deps.clock.now()));
  let held: { id: string; version: number } | null = null;
  return claimed(
    deps,
    person,
    task,
    async (claim) => {
      const principal = consolePrincipal(person, tenant);
      const outcome = await holdSlot(
        deps,
        principal,
        {
          calendarIds: [b.calendarId],
          start: b.start,
          end: b.end,
          ...(customer ? { customer } : {}),
          ...(b.label ? { label: b.label.slice(0, 200) } : {}),
          idempotencyKey: keyFor(deps, task, `hold:${task.version}`),
        },
        { ...(call.audit ? { audit: call.audit } : {}) },
      );
      held = { id: outcome.value.booking.id, version: outcome.value.booking.version };
      if (Object.keys(keys).length > 0) {
        const hold = held;
        held = await deps.store.write(async (tx) =>
          setKeysIn(deps, tx, await loadBooking(tx, person.tenantId, hold.id), keys, hold.version),
        );
      }
      const approvalId = await askApproval(deps, principal, held.id, held.version, task, call);
      return move(deps, person, claim, 'AWAITING_APPROVAL', { objectId: orderObjectId(held.id), approvalId });
    },
    // Nothing held stays behind a task that is not waiting for it.
    async () => {
      if (!held) return;
      await releaseIfHeld(deps, person, held.id);
    },
  );
}

/** Puts the held booking's confirmation up for approval; the approval's id, or what went wrong. */
async function askApproval(
  deps: AppDeps,
  principal: Principal,
  bookingId: string,
  version: number,
  task: InboxTask,
  call: TaskCall,
): Promise<string> {
  try {
    await gatedBookingChange(
      deps,
      principal,
      'confirm_booking',
      {
        bookingId,
        expectedVersion: version,
        idempotencyKey: keyFor(deps, task, `confirm-ask:${task.version}`),
      },
      // The task exists to put this booking before a person: a standing rule never decides it.
      { traceId: call.traceId, personDecides: true },
    );
  } catch (error) {
    if (isDomainError(error) && error.code === 'APPROVAL_REQUIRED')
      return String((error.details as { approvalId: string }).approvalId);
    throw error;
  }
  throw new DomainError('INTERNAL', 'The booking was confirmed without an approval.', {});
}

/** After the approval: confirms the held booking with it (and its payment, if priced). */
export async function completeTask(
  deps: AppDeps,
  person: Person,
  taskId: string,
  expectedVersion: number,
  call: TaskCall,
): Promise<InboxTask> {
  const { task, tenant } = await decidable(deps, person, taskId, expectedVersion);
  if (task.status !== 'AWAITING_APPROVAL' || !task.objectId || !task.approvalId)
    throw new DomainError(
      'INVALID_STATE',
      `A ${task.status.toLowerCase()} task has nothing to complete.`,
      {},
    );
  const bookingId = task.objectId.slice('ORDER:'.length);
  const approvalId = task.approvalId;
  return claimed(deps, person, task, async (claim) => {
    const booking = await deps.store.read((tx) => loadBooking(tx, person.tenantId, bookingId));
    // The hold was made as the person who confirmed the task: it is theirs to finish.
    const owner = await deps.store.read((tx) => tx.people.getPerson(booking.owner.subject));
    if (!owner) throw new DomainError('NOT_FOUND', 'The person who held this booking is gone.', {});
    await gatedBookingChange(
      deps,
      consolePrincipal(owner, tenant),
      'confirm_booking',
      {
        bookingId,
        expectedVersion: booking.version,
        idempotencyKey: keyFor(deps, task, `confirm:${approvalId}`),
        approval: { approvalId },
      },
      { traceId: call.traceId, ...(call.audit ? { audit: call.audit } : {}) },
    );
    return move(deps, person, claim, 'CONFIRMED');
  });
}

/**
 * Rejects a task. It is claimed first (a Confirm pressed at the same moment loses), then a hold
 * it made is released and its approval, if still open, denied: nothing live stays behind.
 */
export async function rejectTask(
  deps: AppDeps,
  person: Person,
  taskId: string,
  expectedVersion: number,
  note: string,
): Promise<InboxTask> {
  const { task } = await decidable(deps, person, taskId, expectedVersion);
  if (task.status === 'CONFIRMING' && deps.clock.now() - (task.decidedAt ?? 0) < STALE_CLAIM_MS)
    throw new DomainError('INVALID_STATE', 'Someone is confirming this task right now; reload it.', {});
  const rejected = await move(deps, person, task, 'REJECTED', { note: note.slice(0, 500) || null });
  if (task.objectId?.startsWith('ORDER:') && readTaskDetail(task.detail).eventType === 'reservation.create') {
    await releaseIfHeld(deps, person, task.objectId.slice('ORDER:'.length));
  }
  if (task.approvalId)
    await decideInConsole(deps, task.approvalId, 'DENY', { person, method: 'inbox task rejected' }).catch(
      () => undefined, // already decided or lapsed: the released hold is what matters
    );
  return rejected;
}
