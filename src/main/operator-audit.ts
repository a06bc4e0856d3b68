import { randomBytes } from 'node:crypto';
import { previewOf } from '../adapters/audit/preview.js';
import type { AuditEntry } from '../ports/audit.js';
import type { Runtime } from './compose.js';

/** Human and operator actions (approval page, CLI) join the same chain as tool calls. */
export function auditOperatorAction(
  runtime: Runtime,
  action: {
    tool: string;
    kind: AuditEntry['kind'];
    tenantId: string;
    transport: string;
    args: unknown;
    outcome?: AuditEntry['outcome'];
    errorCode?: string;
  },
): Promise<void> {
  const { deps } = runtime;
  return runtime.audit.append({
    at: deps.clock.now(),
    tenantId: action.tenantId,
    subject: action.transport === 'cli' ? 'operator-cli' : 'approval-page',
    clientId: action.transport,
    transport: action.transport,
    tool: action.tool,
    kind: action.kind,
    outcome: action.outcome ?? 'ok',
    errorCode: action.errorCode ?? null,
    blockedReason: null,
    argumentsDigest: deps.digest.ofJson(action.args),
    preview: previewOf(action.args, (value) => runtime.auditKey.digest(value)),
    traceId: randomBytes(16).toString('hex'),
    durationMs: 0,
  });
}
