import type { MatchedBooking } from '../../../app/inbox/case-queries.js';
import { orderObjectId } from '../../../app/inbox/case-queries.js';
import type { InboxMessage, InboxTask } from '../../../domain/inbox/inbox.js';
import { formatInstant } from '../../../domain/time/instant.js';
import { HTML_RENDER_MODE } from '../../inbox/index.js';

/** The contract's snake_case views of Holdfast's bookings, tasks and messages. */

export function orderView(m: MatchedBooking) {
  const b = m.booking;
  return {
    object_id: orderObjectId(b.id),
    object_type: 'ORDER',
    order_id: b.id,
    reference: b.reference,
    group_code: b.externalKeys.groupCode ?? null,
    confirmation_number: b.externalKeys.confirmationNumber ?? null,
    reservation_no: b.externalKeys.externalReservationNumber ?? null,
    status: b.status,
    start: formatInstant(b.start),
    end: formatInstant(b.end),
    calendar_ids: b.calendarIds,
    version: b.version,
    can_update: m.canUpdate,
    can_cancel: m.canCancel,
    hard_validation_warnings: m.warnings,
    ...(m.matchedBy.length > 0 ? { matched_by: m.matchedBy } : {}),
  };
}

export function taskView(task: InboxTask, externalSourceMessageId: string | null, receivedAt?: number) {
  return {
    external_source_message_id: externalSourceMessageId,
    ...(receivedAt !== undefined ? { received_at: formatInstant(receivedAt) } : {}),
    task_id: task.kind === 'task' ? task.id : null,
    ai_transition_id: task.transitionId,
    transition_kind: task.kind,
    task_status: task.status,
    system_task_type: task.taskType ?? task.eventType,
    result_type: task.resultType,
    source_event_index: task.sourceEventIndex,
    object_id: task.objectId,
    // The booking's id as soon as a person's decision made one (a create waits for it).
    order_id: task.objectId?.startsWith('ORDER:') ? task.objectId.slice('ORDER:'.length) : null,
    task_created_at: formatInstant(task.createdAt),
  };
}

/** Text and sanitized HTML only: never the raw body, attachments, inline images or external URLs. */
export function messageView(m: InboxMessage) {
  return {
    external_source_message_id: m.externalId,
    source_provider: m.provider,
    source_channel: m.channel,
    subject: m.subject,
    from: m.from,
    cc: m.cc,
    received_at: formatInstant(m.receivedAt),
    text_body: m.textBody,
    html_body_sanitized: m.htmlSanitized,
    html_render_mode: m.htmlSanitized === null ? 'NONE' : HTML_RENDER_MODE,
  };
}
