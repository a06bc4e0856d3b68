import type { AuditEntry } from '../../src/ports/audit.js';

/** An audit entry for a call of this tool: every other field fixed, its trace and operation named after it. */
export const entry = (tool: string): AuditEntry => ({
  at: 1_800_000_000_000,
  tenantId: 't1',
  subject: 'sub',
  clientId: 'cli',
  transport: 'http',
  tool,
  kind: 'read',
  outcome: 'ok',
  errorCode: null,
  blockedReason: null,
  argumentsDigest: 'sha256:d',
  preview: '{}',
  traceId: `trace-${tool}`,
  operationId: `op_${tool}`,
  durationMs: 1,
});
