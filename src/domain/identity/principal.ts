import type { ContractProfile, Scope, TenantLimits, WritePolicy } from './identity.js';

/** Who is calling; every read and write is scoped by it. */
export interface Principal {
  readonly tenantId: string;
  /** The person the call acts for (their id): bookings and approvals belong to them. */
  readonly subject: string;
  /** The connection as the audit names it: credential, its name, the client it declared. */
  readonly clientId: string;
  /** The credential the call came with (a token id, or `stdio`): quotas count per connection. */
  readonly connectionId: string;
  readonly scopes: readonly Scope[];
  readonly writePolicy: WritePolicy;
  readonly limits: TenantLimits;
  /**
   * The contract the tenant's agents are served by, when the tenant chose one (absent: the
   * server's --profile). It decides the tools' names and shapes, and the seed's own rules on
   * approvals and holds that come with them.
   */
  readonly profile?: ContractProfile;
}
