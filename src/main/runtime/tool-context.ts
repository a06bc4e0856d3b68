import type { RequestStateCodec, ServerContext } from '@modelcontextprotocol/server';
import { createRequestStateCodec } from '@modelcontextprotocol/server';
import { boundedDigest } from '../../adapters/ids/index.js';
import type { Logger } from '../../adapters/log/index.js';
import type { ApprovalState, ToolContext } from '../../adapters/mcp/index.js';
import { noMetrics } from '../../adapters/telemetry/index.js';
import type { Principal } from '../../domain/identity/principal.js';
import type { Runtime } from './compose.js';

/** Who a request acts for, as the authentication gate left it on the request (HTTP). */
export function bearerPrincipal(request: ServerContext): Principal | null {
  const principal = request.http?.authInfo?.extra?.principal;
  return principal ? (principal as Principal) : null;
}

/** Sealed MRTR state, bound to the principal it was minted for: another principal's echo fails to verify. */
export function approvalStateCodec(
  key: string,
  principalOf: (request: ServerContext) => Principal | null,
): RequestStateCodec<ApprovalState> {
  return createRequestStateCodec<ApprovalState>({
    key,
    ttlSeconds: 600,
    bind: (request) => {
      const principal = principalOf(request);
      return principal ? `${principal.tenantId}\u0000${principal.subject}` : '\u0000nobody';
    },
  });
}

/** The audit's keyed digests: of personal values in a preview, and of a call's whole arguments. */
export function auditDigests(runtime: Runtime): ToolContext['digests'] {
  const requestKey = runtime.auditKey.derive('request');
  return {
    preview: (value) => runtime.auditKey.digest(value),
    arguments: (value, validated) =>
      validated ? runtime.deps.requestDigest.ofJson(value) : boundedDigest(value, requestKey),
  };
}

/**
 * What every tool call of a transport shares. HTTP: the principal of each request comes from its
 * bearer token; stdio: the one connection acts for the person it was started for.
 */
export function toolContext(
  runtime: Runtime,
  logger: Logger,
  transport: 'stdio' | 'http',
  stdioPrincipal?: Principal,
): ToolContext {
  const principalOf = stdioPrincipal ? () => stdioPrincipal : bearerPrincipal;
  return {
    deps: runtime.deps,
    principalOf,
    logger,
    transport,
    audit: runtime.audit,
    digests: auditDigests(runtime),
    stateCodec: approvalStateCodec(runtime.stateKey, principalOf),
    links: runtime.links,
    profile: runtime.profile,
    metrics: runtime.metrics ?? noMetrics,
  };
}
