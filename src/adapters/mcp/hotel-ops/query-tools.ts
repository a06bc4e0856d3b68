import { caseContext, objectDetail } from '../../../app/inbox/case-queries.js';
import { conversationMessages, conversationTasks } from '../../../app/inbox/conversation-queries.js';
import type { ContractTool } from './contract-kit.js';
import { strictParser } from './contract-kit.js';
import {
  caseContextInput,
  caseContextSchema,
  conversationInput,
  conversationSchema,
  objectDetailInput,
  objectDetailSchema,
} from './contract-schemas.js';
import { messageView, orderView, taskView } from './contract-views.js';

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true } as const;
const count = (list: unknown) => (Array.isArray(list) ? list.length : 0);

export const queryCaseContextTool: ContractTool<ReturnType<typeof caseContextInput.parse>> = {
  name: 'th_hotel_query_case_context',
  title: 'Query case context',
  description:
    'Look up bookings and groups by group_code, confirmation_number or reservation_no (at least one), the tasks still open on them, and whether a result may create, update, cancel or attach evidence. Exact keys only: not a full-text search. Keys read only from earlier mail in the thread are evidence: set body_thread_used_only_as_evidence.',
  scope: 'read',
  kind: 'read',
  inputJson: caseContextSchema,
  parse: strictParser(caseContextInput),
  annotations: READ,
  summaryZh: (d) => {
    const validation = d.target_object_validation as { can_create: boolean };
    return `找到 ${count(d.matched_order_records)} 个订单、${count(d.matched_groups)} 个团组、${count(d.pending_or_open_tasks)} 个未完成任务；${validation.can_create ? '可以新建' : '不可新建'}。`;
  },
  async run(ctx, input) {
    const found = await caseContext(
      ctx.deps,
      ctx.principal,
      {
        groupCode: input.group_code ?? null,
        confirmationNumber: input.confirmation_number ?? null,
        reservationNo: input.reservation_no ?? null,
      },
      {
        threadEvidenceOnly:
          input.body_thread_used_only_as_evidence === true ||
          input.target_key_source === 'body_thread_evidence',
      },
    );
    const v = found.validation;
    return {
      data: {
        matched_order_records: found.matched.map(orderView),
        matched_groups: found.groups.map((g) => ({
          object_id: `GROUP:${g.code}`,
          object_type: 'GROUP',
          group_code: g.code,
          order_ids: g.bookingIds,
        })),
        pending_or_open_tasks: found.openTasks.map((t) => taskView(t.task, t.externalSourceMessageId)),
        target_object_validation: {
          can_create: v.canCreate,
          can_update: v.canUpdate,
          can_cancel: v.canCancel,
          can_attach_evidence: v.canAttachEvidence,
          target_object_id: v.targetObjectId,
          open_create_task_id: v.openCreateTaskId,
          reasons: v.reasons,
        },
        warnings: found.warnings,
      },
      warnings: found.warnings,
    };
  },
};

export const queryObjectDetailTool: ContractTool<ReturnType<typeof objectDetailInput.parse>> = {
  name: 'th_hotel_query_object_detail',
  title: 'Query object detail',
  description:
    'Read one object found through the case context: ORDER:{order_id} (a booking) or GROUP:{group_code}. Answers its keys, status, can_update, can_cancel and hard-validation warnings. The external source message ids listed are the provider ids of the mail its tasks came from.',
  scope: 'read',
  kind: 'read',
  inputJson: objectDetailSchema,
  parse: strictParser(objectDetailInput),
  annotations: READ,
  summaryZh: (d) => `对象 ${String(d.object_id)}（${String(d.object_type)}）的详情。`,
  async run(ctx, input) {
    const detail = await objectDetail(ctx.deps, ctx.principal, input.object_id);
    const orders = detail.bookings.map(orderView);
    const one = detail.kind === 'ORDER' ? orders[0]! : null;
    return {
      data: {
        ...(one ?? {
          object_id: detail.objectId,
          object_type: 'GROUP',
          group_code: detail.objectId.slice('GROUP:'.length),
          orders,
          can_update: orders.some((o) => o.can_update),
          can_cancel: false,
          hard_validation_warnings: orders.length > 1 ? ['GROUP_HAS_SEVERAL_ORDERS'] : [],
        }),
        external_source_message_ids: detail.sourceMessages.map((m) => m.externalId),
      },
    };
  },
};

const conversationOf = (input: ReturnType<typeof conversationInput.parse>) => ({
  provider: input.source_provider ?? null,
  channel: input.source_channel ?? null,
  externalConversationId: input.external_conversation_id ?? null,
  sourceMessageId: input.source_message_id ?? null,
});

export const listConversationTasksTool: ContractTool<ReturnType<typeof conversationInput.parse>> = {
  name: 'th_hotel_list_message_conversation_tasks',
  title: 'List conversation tasks',
  description:
    'Every task already made from a mail conversation, by mail received time, then task created time, then task id: check it before splitting the same mail into tasks again. Give external_conversation_id or source_message_id (the conversation id wins when both are given).',
  scope: 'read',
  kind: 'read',
  inputJson: conversationSchema,
  parse: strictParser(conversationInput),
  annotations: READ,
  summaryZh: (d) => `该会话共有 ${String(d.task_count)} 个任务。`,
  async run(ctx, input) {
    const found = await conversationTasks(ctx.deps, ctx.principal, conversationOf(input));
    return {
      data: {
        external_conversation_id: found.conversation.externalId,
        source_provider: found.conversation.provider,
        source_channel: found.conversation.channel,
        task_count: found.tasks.length,
        tasks: found.tasks.map((t) => taskView(t.task, t.message.externalId, t.message.receivedAt)),
      },
    };
  },
};

export const listConversationMessagesTool: ContractTool<ReturnType<typeof conversationInput.parse>> = {
  name: 'th_hotel_list_message_conversation_messages',
  title: 'List conversation messages',
  description:
    "A mail conversation's messages in received order, as plain text and sanitized HTML only (no raw HTML, attachments, inline images or external links). Every read is recorded. Give external_conversation_id or source_message_id.",
  // Mail carries customers' contact details, which only `sensitive` connections see unmasked.
  scope: 'sensitive',
  kind: 'read',
  inputJson: conversationSchema,
  parse: strictParser(conversationInput),
  // Not idempotent in effect: each read leaves an access record.
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false },
  summaryZh: (d) => `该会话共有 ${String(d.message_count)} 封邮件（本次读取已记录）。`,
  async run(ctx, input) {
    const found = await conversationMessages(
      ctx.deps,
      ctx.principal.tenantId,
      { connection: ctx.principal },
      conversationOf(input),
      'th_hotel_list_message_conversation_messages',
    );
    return {
      data: {
        external_conversation_id: found.conversation.externalId,
        message_count: found.messages.length,
        messages: found.messages.map(messageView),
      },
    };
  },
};
