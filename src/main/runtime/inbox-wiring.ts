import type { InboxIngestOptions } from '../../adapters/http/index.js';
import { ingestMessage } from '../../app/inbox/ingest.js';
import { authenticateIngest } from '../../app/inbox/ingest-tokens.js';
import type { Runtime } from './compose.js';
import type { ServerConfig } from '../config/config.js';
import { operatorCall } from '../cli/operator-audit.js';

/** The REST ingestion endpoint over the runtime: each accepted or refused message leaves an audit record. */
export function inboxIngestOptions(runtime: Runtime, config: ServerConfig): InboxIngestOptions {
  const { deps } = runtime;
  return {
    // The contract allows 10 MB; a plain server keeps Holdfast's own cap unless told otherwise.
    bodyTimeoutMs: config.bodyTimeoutMs,
    maxBodyBytes: Math.max(config.maxBodyBytes, config.profile === 'hotel-ops' ? 10 * 1024 * 1024 : 0),
    now: () => deps.clock.now(),
    authenticate: (secret) => authenticateIngest(deps, secret),
    ingest: (token, message) => ingestMessage(deps, token.tenantId, message),
    record: (token, outcome) =>
      operatorCall(runtime, {
        tool: 'inbox_ingest',
        kind: 'write',
        tenantId: token.tenantId,
        transport: 'http',
        args: { externalMessageId: outcome.externalId ?? null },
        subject: `ingest:${token.id}`,
        clientId: `ingest token ${token.name}`,
      }).finish(outcome.ok ? undefined : { outcome: 'error', code: outcome.code ?? 'INTERNAL', message: '' }),
  };
}
