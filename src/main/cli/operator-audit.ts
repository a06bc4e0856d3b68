import { randomBytes } from 'node:crypto';
import { CallAudit } from '../../adapters/audit/index.js';
import { previewOf } from '../../adapters/audit/index.js';
import type { AuditEntry } from '../../ports/audit.js';
import type { Runtime } from '../runtime/compose.js';

export interface OperatorAction {
  readonly tool: string;
  readonly kind: AuditEntry['kind'];
  readonly tenantId: string;
  /** 'cli' for the command line; 'http' for a page a person used; 'embedded' for createHoldfast. */
  readonly transport: 'cli' | 'http' | 'embedded';
  readonly args: unknown;
  /** Who acted: the signed-in person on a page (their id); the CLI's operator by default. */
  readonly subject?: string;
  /** How: 'session (password)' for a page, the command line's name otherwise. */
  readonly clientId?: string;
}

/**
 * The one audit record of a person's action on a human surface (approval page, CLI). Like a
 * tool call's, it goes into the transaction of the action's effect when there is one
 * (`recordIn`), else it is appended once the action ended (`finish`).
 */
export function operatorCall(runtime: Runtime, action: OperatorAction): CallAudit {
  const { deps } = runtime;
  return new CallAudit(
    {
      tenantId: action.tenantId,
      subject: action.subject ?? (action.transport === 'cli' ? 'operator-cli' : 'anonymous-page'),
      clientId: action.clientId ?? action.transport,
      transport: action.transport,
      tool: action.tool,
      kind: action.kind,
      argumentsDigest: deps.requestDigest.ofJson(action.args),
      preview: previewOf(action.args, (value) => runtime.auditKey.digest(value)),
      traceId: randomBytes(16).toString('hex'),
      operationId: deps.ids.newUuid(),
    },
    runtime.audit,
    () => deps.clock.now(),
  );
}
