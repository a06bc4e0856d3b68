/**
 * Holdfast inside a Node application, without MCP: `import { createHoldfast } from 'holdfast'`.
 * The same use cases the tools run (find, hold, ask a person, confirm, cancel), on the same
 * database, with the same rules, idempotency and audit trail; the application acts for one
 * person, as `holdfast stdio --as` does.
 */
import { randomUUID } from 'node:crypto';
import { silentLogger } from '../adapters/log/index.js';
import { decideById, requestApproval } from '../app/approvals/approvals.js';
import { findSlots } from '../app/booking/find-slots.js';
import { findSlotsByNeed } from '../app/booking/find-slots-by-need.js';
import { gatedBookingChange } from '../app/booking/gated-booking.js';
import { holdSlot } from '../app/booking/hold-slot.js';
import { getBooking } from '../app/booking/read-bookings.js';
import { releaseHold } from '../app/booking/release-hold.js';
import { createCalendar, listCalendars } from '../app/calendars/calendars.js';
import { addPerson, hasPeople } from '../app/identity/people.js';
import { localConnection } from '../app/identity/tokens.js';
import type { Principal } from '../domain/identity/principal.js';
import { readConfig } from './config/config.js';
import { operatorCall } from './cli/operator-audit.js';
import type { CreateHoldfast, GatedChange, Holdfast, Retryable } from './embed-api.js';
import type { Runtime } from './runtime/compose.js';
import { buildRuntime } from './runtime/compose.js';
import { rememberEmbedded } from './embed-handles.js';

export type * from './embed-api.js';
export { DomainError } from '../domain/errors.js';

/** Opens Holdfast on a database for an application that embeds it. */
export const createHoldfast: CreateHoldfast = async (options) => {
  const args = ['stdio', '--database', options.database, '--as', options.actAs];
  if (options.tenantId) args.push('--tenant', options.tenantId);
  if (options.holdTtlSeconds !== undefined) args.push('--hold-ttl', String(options.holdTtlSeconds));
  if (options.auditKeyFile) args.push('--audit-key-file', options.auditKeyFile);
  const config = { ...readConfig(args, {}), command: 'embedded' };
  const runtime = await buildRuntime(config, silentLogger, { createAuditKey: true });
  try {
    if (!(await hasPeople(runtime.deps, config.tenantId)))
      await addPerson(runtime.deps, { tenantId: config.tenantId, email: options.actAs, role: 'owner' });
    const policy = options.writePolicy ?? 'draft';
    const principal = await localConnection(runtime.deps, options.actAs, policy, 'embedded');
    return rememberEmbedded(embedded(runtime, principal), { runtime, principal });
  } catch (error) {
    await runtime.close();
    throw error;
  }
};

function embedded(runtime: Runtime, principal: Principal): Holdfast {
  const { deps } = runtime;
  /** Runs one use case as one audited call, as a tool call is: the record commits with its effect. */
  async function audited<T>(
    tool: string,
    args: unknown,
    work: (call: CallOf) => Promise<T>,
    kind: 'write' | 'approval' | 'admin' = 'write',
  ): Promise<T> {
    const audit = operatorCall(runtime, {
      tool,
      kind,
      tenantId: principal.tenantId,
      transport: 'embedded',
      args,
      subject: principal.subject,
      clientId: 'embedded',
    });
    try {
      const result = await work({ audit, traceId: randomUUID().replace(/-/g, '') });
      await audit.finish();
      return result;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      await audit.finish({
        outcome: 'error',
        code: typeof code === 'string' ? code : 'INTERNAL',
        message: error instanceof Error ? error.message : String(error),
      });
      throw error;
    }
  }
  const key = (input: Retryable) => input.idempotencyKey ?? randomUUID();
  const gated = (action: 'confirm_booking' | 'cancel_booking', input: GatedChange) =>
    audited(action, input, async (call) => {
      const { approvalId, ...rest } = input;
      const change = { ...rest, approval: { approvalId }, idempotencyKey: key(input) };
      return (await gatedBookingChange(deps, principal, action, change, call)).value.booking;
    });
  return {
    actingFor: principal.subject,
    createCalendar: (input) =>
      audited(
        'create_calendar',
        input,
        async (call) =>
          (await createCalendar(deps, principal, { ...input, idempotencyKey: key(input) }, call)).value,
        'admin',
      ),
    listCalendars: (input = {}) => listCalendars(deps, principal, { limit: 50, ...input }),
    findSlots: ({ calendarIds, query, limit = 50, ...search }) =>
      query !== undefined
        ? findSlotsByNeed(deps, principal, { ...search, query, limit })
        : findSlots(deps, principal, { ...search, calendarIds: calendarIds ?? [], limit }),
    holdSlot: (input) =>
      audited('hold_slot', input, async (call) => {
        return (await holdSlot(deps, principal, { ...input, idempotencyKey: key(input) }, call)).value
          .booking;
      }),
    getBooking: async (bookingId) => (await getBooking(deps, principal, bookingId)).booking,
    releaseHold: (input) =>
      audited('release_hold', input, async (call) => {
        const released = await releaseHold(deps, principal, { ...input, idempotencyKey: key(input) }, call);
        return released.value.booking;
      }),
    requestApproval: (input) =>
      audited('request_approval', input, async (call) => {
        const pending = await requestApproval(
          deps,
          principal,
          { ...input, idempotencyKey: key(input) },
          call,
        );
        return { ...pending.value, approveUrl: runtime.links.approveUrl(pending.value.approvalId) };
      }),
    decideApproval: ({ approvalId, decision, by }) =>
      audited(
        'decide_approval',
        { approvalId, decision, by },
        (call) => decideById(deps, principal.tenantId, approvalId, decision, by, call),
        'approval',
      ),
    confirmBooking: (input) => gated('confirm_booking', input),
    cancelBooking: (input) => gated('cancel_booking', input),
    close: () => runtime.close(),
  };
}

type CallOf = { readonly audit: ReturnType<typeof operatorCall>; readonly traceId: string };
