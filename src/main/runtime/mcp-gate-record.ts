import { randomBytes } from 'node:crypto';
import { CallAudit } from '../../adapters/audit/index.js';
import type { McpGateOptions } from '../../adapters/http/index.js';
import type { Logger } from '../../adapters/log/index.js';
import type { ToolContext } from '../../adapters/mcp/index.js';
import { isLimited } from '../../domain/identity/identity.js';
import type { Runtime } from './compose.js';

/**
 * The gate's record of a request to /mcp no handler recorded (discovery, refusals before any
 * handler, credentials refused): one audit record, one log line, one metric sample. A request
 * with no valid credential belongs to the serving tenant's trail.
 */
export function mcpGateWiring(
  runtime: Runtime,
  ctx: ToolContext,
  logger: Logger,
  tenantId: string,
): Pick<McpGateOptions, 'record' | 'takeBudget' | 'now'> {
  const { deps } = runtime;
  return {
    now: () => deps.clock.now(),
    async record(entry) {
      const audit = new CallAudit(
        {
          tenantId: entry.principal?.tenantId ?? tenantId,
          subject: entry.principal?.subject ?? 'anonymous',
          clientId: entry.clientId,
          transport: 'http',
          tool: entry.method,
          kind: 'read',
          argumentsDigest: ctx.digests.arguments(entry.preview, true),
          preview: JSON.stringify(entry.preview),
          traceId: randomBytes(16).toString('hex'),
          operationId: deps.ids.newUuid(),
        },
        runtime.audit,
        () => deps.clock.now(),
      );
      await audit
        .finish(
          entry.outcome === 'ok'
            ? undefined
            : { outcome: 'error', code: entry.code ?? 'INTERNAL', message: entry.reason ?? '' },
        )
        .catch((error: unknown) =>
          logger.error('audit append failed', { method: entry.method, error: String(error) }),
        );
      ctx.metrics.callFinished(
        entry.method,
        entry.outcome === 'ok' ? 'ok' : (entry.code ?? 'error'),
        entry.durationMs / 1000,
      );
      logger.info('mcp request', {
        method: entry.method,
        outcome: entry.outcome,
        ...(entry.code ? { code: entry.code } : {}),
        ...(entry.reason ? { reason: entry.reason } : {}),
        ms: entry.durationMs,
      });
    },
    async takeBudget(principal) {
      const max = principal.limits.callsPerMinute;
      if (!isLimited(max)) return { ok: true };
      const taken = await deps.rateLimits.take(`calls:${principal.connectionId}`, max, 60_000);
      return taken.ok ? { ok: true } : { ok: false, retryAfterMs: taken.retryAfterMs };
    },
  };
}
