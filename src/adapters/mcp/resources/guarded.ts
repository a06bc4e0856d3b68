import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError } from '@modelcontextprotocol/server';
import type { Principal } from '../../../domain/identity/principal.js';
import { DomainError } from '../../../domain/errors.js';
import { CallAudit } from '../../audit/call-audit.js';
import type { ToolContext } from '../tool-kit.js';
import { ANONYMOUS, declaredClient, markAudited, traceIdOf, withinCallBudget } from '../tool-kit.js';

export interface ProtocolCall {
  /** `resources/read`, `resources/list`, `completion/complete`: what the audit calls it. */
  readonly method: string;
  /** The request's few fields the audit may show (no personal data). */
  readonly preview: Record<string, unknown>;
  /** For reads: not found answers -32602 naming it (SEP-2164). */
  readonly uri?: string;
}

/**
 * A protocol request other than a tool call, held to the same rules: someone must be calling,
 * it counts against the connection's call budget, it is audited by method, and a refusal is a
 * JSON-RPC -32602 with the reason (never the engine's words). Not found and not yours are alike.
 */
export async function guarded<T>(
  server: McpServer,
  ctx: ToolContext,
  request: ServerContext,
  call: ProtocolCall,
  work: (principal: Principal) => Promise<T>,
): Promise<T> {
  const caller = ctx.principalOf(request);
  const principal = caller
    ? { ...caller, clientId: `${caller.clientId} · ${declaredClient(request, server, 'request')}` }
    : ANONYMOUS;
  const audit = new CallAudit(
    {
      tenantId: principal.tenantId,
      subject: principal.subject,
      clientId: principal.clientId,
      transport: ctx.transport,
      tool: call.method,
      kind: 'read',
      argumentsDigest: ctx.digests.arguments(call.preview, true),
      preview: JSON.stringify(call.preview),
      traceId: traceIdOf(request),
      operationId: ctx.deps.ids.newUuid(),
    },
    ctx.audit,
    () => ctx.deps.clock.now(),
  );
  markAudited(request);
  try {
    if (!caller) throw new DomainError('FORBIDDEN', 'No credential: this request acts for nobody.', {});
    await withinCallBudget(ctx, principal);
    const result = await work(principal);
    await audit.finish();
    return result;
  } catch (error) {
    const code =
      error instanceof DomainError
        ? error.code
        : error instanceof ProtocolError
          ? 'INVALID_ARGUMENTS'
          : 'INTERNAL';
    await audit.finish({ outcome: 'error', code, message: '' }).catch(() => undefined);
    if (code === 'NOT_FOUND' && call.uri !== undefined) throw new ResourceNotFoundError(call.uri);
    if (error instanceof DomainError)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message, {
        code,
        ...(call.uri === undefined ? {} : { uri: call.uri }),
      });
    if (error instanceof ProtocolError) throw error;
    ctx.logger.error('protocol request failed', { method: call.method, error: String(error) });
    throw new ProtocolError(ProtocolErrorCode.InternalError, 'Internal error');
  }
}
