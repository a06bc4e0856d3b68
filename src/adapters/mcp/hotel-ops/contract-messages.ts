import type { ErrorCode } from '../../../domain/errors.js';
import type { InboxErrorCode } from '../../../domain/inbox/inbox-errors.js';

/** The contract's MCP-layer codes; business codes (inbox and Holdfast's own) pass through as they are. */
export type McpLayerCode =
  | 'MCP_AUTH_INVALID'
  | 'MCP_TOOL_DISABLED'
  | 'MCP_REQUEST_INVALID'
  | 'MCP_REQUEST_BODY_TOO_LARGE'
  | 'MCP_METHOD_NOT_FOUND'
  | 'MCP_TOOL_NOT_FOUND'
  | 'MCP_SUBMIT_PAYLOAD_INVALID'
  | 'MCP_INTERNAL_ERROR';

/**
 * The contract keeps "the error code and the Chinese message" in the structured result. The MCP
 * layer's wording is the contract's own table; the business codes and Holdfast's codes that reach
 * a contract tool are worded alike. A missing code is a compile error.
 */
export const CONTRACT_MESSAGES_ZH: Readonly<Record<McpLayerCode | InboxErrorCode | ErrorCode, string>> = {
  MCP_AUTH_INVALID: 'MCP 层访问凭证缺失或无效',
  MCP_TOOL_DISABLED: '工具未启用',
  MCP_REQUEST_INVALID: 'MCP JSON-RPC 请求体不合法',
  MCP_REQUEST_BODY_TOO_LARGE: 'MCP 请求体超过默认限制或环境配置限制',
  MCP_METHOD_NOT_FOUND: 'MCP 方法不存在',
  MCP_TOOL_NOT_FOUND: 'MCP 工具不存在',
  MCP_SUBMIT_PAYLOAD_INVALID: '写入工具 payload 未通过 MCP adapter 提交前校验',
  MCP_INTERNAL_ERROR: 'MCP endpoint 内部异常',
  MISSING_SOURCE_MESSAGE_ID: '缺少来源邮件 ID（source_message_id）',
  SOURCE_MESSAGE_NOT_FOUND: '找不到该来源邮件',
  SOURCE_MESSAGE_AMBIGUOUS: '来源邮件 ID 对应多封邮件，无法确定',
  CASE_KEY_REQUIRED: '至少需要一个业务键（团号、确认号或预订号）',
  CONVERSATION_KEY_REQUIRED: '需要会话 ID 或来源邮件 ID',
  CONVERSATION_NOT_FOUND: '找不到该会话',
  INVALID_OBJECT_ID: '对象 ID 格式不正确',
  OBJECT_NOT_FOUND: '找不到该对象',
  BUSINESS_KEY_TAKEN: '该业务键已被其他对象使用',
  RESULTS_ALREADY_DECIDED: '该邮件先前提交的任务已有人处理，不能用新内容替换',
  INVALID_ARGUMENTS: '参数不合法',
  NOT_FOUND: '找不到请求的对象',
  SLOT_UNAVAILABLE: '该时间段已被占用',
  OUTSIDE_AVAILABILITY: '该时间不在可预订时间内',
  OUTSIDE_BOOKING_RULES: '该时间不符合预订规则',
  HOLD_EXPIRED: '预留已过期',
  VERSION_CONFLICT: '数据已被修改，请重新读取后再试',
  INVALID_STATE: '当前状态不允许此操作',
  IDEMPOTENCY_CONFLICT: '幂等键已用于其他参数',
  APPROVAL_REQUIRED: '需要人工审批',
  APPROVAL_PENDING: '审批尚未完成',
  APPROVAL_DENIED: '审批被拒绝',
  APPROVAL_EXPIRED: '审批已过期',
  APPROVAL_MISMATCH: '审批与本次操作不一致',
  APPROVAL_USED: '审批已被使用',
  PAYMENT_PENDING: '付款尚未完成',
  PAYMENT_FAILED: '付款失败',
  PAYMENT_MISMATCH: '付款信息与预订不一致',
  PAYMENT_UNAVAILABLE: '付款服务暂不可用',
  INVALID_CURSOR: '分页游标无效',
  FORBIDDEN: '没有执行此操作的权限',
  RATE_LIMITED: '调用过于频繁，请稍后再试',
  QUOTA_EXCEEDED: '已超出配额',
  UNAVAILABLE: '数据库暂时无法连接，请稍后用同一幂等键重试',
  INTERNAL: '服务器内部错误',
};

/** The Chinese message of a code: the code's wording, and the field or scope it names. */
export function chineseMessage(code: string, details: Readonly<Record<string, unknown>>): string {
  const base = (CONTRACT_MESSAGES_ZH as Record<string, string>)[code] ?? '请求未能完成';
  const field = typeof details.field === 'string' ? `（字段：${details.field}）` : '';
  const scope = typeof details.missing_scope === 'string' ? `（缺少权限：${details.missing_scope}）` : '';
  return `${base}${field}${scope}。`;
}
