import { submitTaskResults } from '../../../app/inbox/submit-results.js';
import type { SubmitAdapted } from '../../../domain/inbox/submit-payload.js';
import { adaptSubmitPayload } from '../../../domain/inbox/submit-payload.js';
import type { ContractTool } from './contract-kit.js';
import { ContractError } from './contract-errors.js';
import { SUBMIT_INPUT_SHAPES, submitSchema } from './contract-schemas.js';

export const submitTaskResultsTool: ContractTool<SubmitAdapted> = {
  name: 'th_hotel_submit_task_results',
  title: 'Submit task results',
  description:
    "Hand the final task split of ONE current source mail to people: V3 `source_message + message_events[]`, V3 S10/S99 `source_message + route_code …`, or V2 `source_message_id + ai_task_results[]`. source_message_id is the provider's external message id. Events are numbered 1.. in array order (E1, E_PARENT … map to source_event_index). Checked before anything is written: an unknown field, a missing or duplicate event id or a dangling relation is MCP_SUBMIT_PAYLOAD_INVALID (fix the payload, do not retry as is). The same content again replays (idempotent_replay: true); corrected content replaces results nobody has acted on yet (superseded names the withdrawn tasks) and is refused with RESULTS_ALREADY_DECIDED once a person has. Never call while still drafting.",
  scope: 'draft',
  kind: 'write',
  inputJson: submitSchema,
  meta: { 'io.github.holdfast-dev/inputShapes': SUBMIT_INPUT_SHAPES },
  parse(args) {
    const adapted = adaptSubmitPayload(args);
    if (!adapted.ok) throw new ContractError(adapted.code, adapted.message, adapted.details);
    return adapted;
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  summaryZh: (d) =>
    d.idempotent_replay
      ? `与先前提交的内容相同，返回原批次 ${String(d.batch_id)}，未做任何新写入。`
      : `已提交 ${String(d.accepted_count)} 项结果（批次 ${String(d.batch_id)}），等待人工确认。`,
  async run(ctx, adapted, call) {
    const answer = await submitTaskResults(ctx.deps, ctx.principal, adapted, { audit: call.audit });
    return { data: { ...answer } };
  },
};
