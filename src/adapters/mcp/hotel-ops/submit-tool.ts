import { submitTaskResults } from '../../../app/inbox/submit-results.js';
import type { SubmitAdapted } from '../../../domain/inbox/submit-payload.js';
import { adaptSubmitPayload } from '../../../domain/inbox/submit-payload.js';
import type { ContractTool } from './contract-kit.js';
import { ContractError } from './contract-errors.js';
import { submitSchema } from './contract-schemas.js';

export const submitTaskResultsTool: ContractTool<SubmitAdapted> = {
  name: 'th_hotel_submit_task_results',
  title: 'Submit task results',
  description:
    "Hand the final task split of ONE current source mail to people: V3 `source_message + message_events[]`, V3 S10/S99 `source_message + route_code …`, or V2 `source_message_id + ai_task_results[]`. source_message_id is the provider's external message id. Events are numbered 1.. in array order (E1, E_PARENT … map to source_event_index). Checked before anything is written: an unknown field, a missing or duplicate event id or a dangling relation is MCP_SUBMIT_PAYLOAD_INVALID (fix the payload, do not retry as is). A second call for the same message returns the first batch with idempotent_replay: true. Never call while still drafting.",
  scope: 'draft',
  kind: 'write',
  inputJson: submitSchema,
  parse(args) {
    const adapted = adaptSubmitPayload(args);
    if (!adapted.ok) throw new ContractError(adapted.code, adapted.message, adapted.details);
    return adapted;
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  async run(ctx, adapted, call) {
    const answer = await submitTaskResults(ctx.deps, ctx.principal, adapted, { audit: call.audit });
    return { data: { ...answer } };
  },
};
