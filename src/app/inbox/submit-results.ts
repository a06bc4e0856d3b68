import type { Principal } from '../../domain/identity/principal.js';
import type { InboxMessage, InboxTask, SubmitBatch } from '../../domain/inbox/inbox.js';
import { InboxError } from '../../domain/inbox/inbox-errors.js';
import type { SubmitAdapted, Transition } from '../../domain/inbox/submit-payload.js';
import type { EffectAudit } from '../../ports/audit.js';
import { requireWriter } from '../authorize.js';
import type { AppDeps } from '../deps.js';
import { uniqueMessage } from './conversation-queries.js';
import type { Target } from './task-targets.js';
import { targetOf } from './task-targets.js';

export interface SubmitItem {
  readonly source_event_index: number;
  readonly ai_transition_id: string;
  readonly transition_kind: Transition['kind'];
  readonly problem: string | null;
  readonly order_id: string | null;
  /** Why order_id is null: a create waits for a person (`pending_confirmation`), or the item is a contract error. */
  readonly order_id_reason: 'pending_confirmation' | 'contract_error' | null;
  readonly object_id: string | null;
  readonly task_id: string | null;
  readonly task_status: string;
}

export interface SubmitAnswer {
  readonly batch_id: string;
  readonly idempotent_replay: boolean;
  /** This submission replaced an earlier one for the message, whose tasks nobody had decided. */
  readonly superseded: { readonly batch_id: string; readonly withdrawn_task_ids: readonly string[] } | null;
  readonly accepted_count: number;
  readonly items: readonly SubmitItem[];
  readonly mapping_diagnostics: unknown;
}

/** The task row of one transition, with what the console needs to act on it. */
function taskOf(
  deps: AppDeps,
  t: Transition,
  message: InboxMessage,
  batchId: string,
  now: number,
  id: string,
  target: Target | null,
): InboxTask {
  // A change or cancellation whose booking cannot be named is kept for people, not made a task.
  const problem = target && 'problem' in target ? target.problem : null;
  const error = t.kind === 'adapter_contract_error' || problem !== null;
  const b = t.booking;
  return {
    id,
    tenantId: message.tenantId,
    batchId,
    messageId: message.id,
    conversationId: message.conversationId,
    transitionId: deps.ids.newId('tr'),
    kind: error ? 'adapter_contract_error' : 'task',
    sourceEventIndex: t.sourceEventIndex,
    resultType: t.resultType,
    eventType: t.eventType,
    taskType: t.taskType,
    status: error ? 'CONTRACT_ERROR' : 'PENDING_CONFIRMATION',
    objectId: target && 'objectId' in target ? target.objectId : null,
    approvalId: null,
    detail: {
      event_type: t.eventType,
      result_type: t.resultType,
      task_type: t.taskType,
      catalog_code: t.catalogCode,
      skill_id: t.skillId,
      summary: t.summary,
      problem: t.problem ?? problem,
      case_keys: {
        group_code: t.caseKeys.groupCode,
        confirmation_number: t.caseKeys.confirmationNumber,
        reservation_no: t.caseKeys.reservationNo,
      },
      target_object_id: t.targetObjectId,
      booking: b
        ? {
            calendar_id: b.calendarId,
            start: b.start,
            end: b.end,
            customer: b.customer,
            label: b.label,
            confirmation_number: b.confirmationNumber,
            group_code: b.groupCode,
            reservation_no: b.reservationNo,
          }
        : null,
      manual_review: t.manualReview,
      related_source_event_index: t.relatedSourceEventIndex,
      parent_source_event_index: t.parentSourceEventIndex,
      related_source_event_indices: t.relatedSourceEventIndices,
      payload: t.payload,
    },
    decidedBy: null,
    decidedAt: null,
    note: null,
    version: 1,
    createdAt: now,
  };
}

/** Statuses of a task nobody has acted on: a corrected submission may still replace it. */
const UNDECIDED = new Set(['PENDING_CONFIRMATION', 'CONTRACT_ERROR']);

/**
 * Stores an agent's results for one source message as one batch of transitions, with the call's
 * audit record, in one transaction. Results are per message. The same content again replays the
 * stored answer. Other content replaces the earlier batch while nobody has decided any of its
 * tasks (they are withdrawn, and the answer and the audit record name them); once a person has,
 * it is refused naming the decided tasks — the first results stand.
 */
export async function submitTaskResults(
  deps: AppDeps,
  principal: Principal,
  adapted: SubmitAdapted,
  call: { readonly audit?: EffectAudit },
): Promise<SubmitAnswer> {
  requireWriter(principal, 'draft');
  if (!adapted.sourceMessageId)
    throw new InboxError('MISSING_SOURCE_MESSAGE_ID', 'source_message.source_message_id is required.', {
      field: adapted.shape === 'v2_task_results' ? 'source_message_id' : 'source_message.source_message_id',
    });
  const externalId = adapted.sourceMessageId;
  const contentDigest = deps.digest.ofJson(adapted.transitions);
  return deps.store.write(async (tx) => {
    const message = await uniqueMessage(tx, principal.tenantId, externalId);
    await tx.serialize(`inbox-batch:${message.id}`);
    const earlier = await tx.inbox.batchOf(principal.tenantId, message.id);
    // A batch stored before digests were kept cannot be compared: it replays, as it always did.
    if (earlier && (earlier.contentDigest === null || earlier.contentDigest === contentDigest)) {
      await call.audit?.recordIn(tx);
      // Stored before `superseded` was part of the answer: say null rather than leave it out.
      const stored = earlier.result as unknown as SubmitAnswer;
      return { ...stored, superseded: stored.superseded ?? null, idempotent_replay: true };
    }
    const withdrawn = earlier ? await tx.inbox.tasksOfBatch(principal.tenantId, earlier.id) : [];
    const decided = withdrawn.filter((t) => !UNDECIDED.has(t.status));
    if (earlier && decided.length > 0)
      throw new InboxError(
        'RESULTS_ALREADY_DECIDED',
        `Results for this message were submitted before and people already acted on ${decided.map((t) => t.id).join(', ')}: those results stand and this submission changed nothing. Correct it in the console, or submit results for the next message.`,
        { batch_id: earlier.id, decided_task_ids: decided.map((t) => t.id) },
      );
    const now = deps.clock.now();
    const batchId = deps.ids.newId('batch');
    // Tasks of one batch share their creation time; ids that sort in array order keep the contract's order.
    const base = deps.ids.newId('task');
    const tasks: InboxTask[] = [];
    for (const [i, t] of adapted.transitions.entries())
      tasks.push(
        taskOf(
          deps,
          t,
          message,
          batchId,
          now,
          `${base}_${String(i + 1).padStart(3, '0')}`,
          await targetOf(tx, principal, t),
        ),
      );
    const answer: SubmitAnswer = {
      batch_id: batchId,
      idempotent_replay: false,
      superseded: earlier ? { batch_id: earlier.id, withdrawn_task_ids: withdrawn.map((t) => t.id) } : null,
      accepted_count: tasks.length,
      items: tasks.map((t) => ({
        source_event_index: t.sourceEventIndex,
        ai_transition_id: t.transitionId,
        transition_kind: t.kind,
        problem: (t.detail.problem as string | null) ?? null,
        order_id: t.objectId?.startsWith('ORDER:') ? t.objectId.slice(6) : null,
        order_id_reason: t.objectId?.startsWith('ORDER:')
          ? null
          : t.kind === 'task'
            ? 'pending_confirmation'
            : 'contract_error',
        object_id: t.objectId,
        task_id: t.kind === 'task' ? t.id : null,
        task_status: t.status,
      })),
      mapping_diagnostics: adapted.diagnostics
        ? {
            event_id_mapping: adapted.diagnostics.events,
            dropped_compatibility_fields: adapted.droppedCompatibilityFields,
          }
        : null,
    };
    const batch: SubmitBatch = {
      id: batchId,
      tenantId: principal.tenantId,
      messageId: message.id,
      shape: adapted.shape,
      result: answer as unknown as Record<string, unknown>,
      contentDigest,
      submittedBy: `${principal.connectionId} for ${principal.subject}`,
      createdAt: now,
    };
    if (earlier) {
      if (!(await tx.inbox.supersedeBatch(earlier, batch)))
        throw new InboxError(
          'SOURCE_MESSAGE_AMBIGUOUS',
          'Another submission for this message won; call again.',
          {},
        );
      call.audit?.made({
        supersededBatchId: earlier.id,
        withdrawnTaskIds: withdrawn.map((t) => t.id).join(','),
      });
    } else if (!(await tx.inbox.insertBatch(batch)))
      throw new InboxError(
        'SOURCE_MESSAGE_AMBIGUOUS',
        'Another submission for this message won; call again.',
        {},
      );
    await tx.inbox.insertTasks(tasks);
    await call.audit?.recordIn(tx);
    return answer;
  });
}
