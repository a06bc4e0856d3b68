import type { StandingRule } from '../../domain/approval/standing-rule.js';
import type { Instant } from '../../domain/time/instant.js';

/** People's standing approvals (rules under which their agents' changes are approved at once). */
export interface StandingRuleStore {
  /** Adds a rule as granted. */
  insert(rule: StandingRule): Promise<void>;
  /** The tenant's rule with this id; null when there is none in the tenant. */
  get(tenantId: string, id: string): Promise<StandingRule | null>;
  /** The person's rules that stand at `now` (not revoked, not expired), oldest first. */
  liveOf(tenantId: string, personId: string, now: Instant): Promise<StandingRule[]>;
  /** The newest 200 rules of the tenant, or of one person in it, standing or not. */
  list(tenantId: string, personId?: string): Promise<StandingRule[]>;
  /** Marks it revoked at `now` unless it already was; false when it was (or does not exist). */
  revoke(tenantId: string, id: string, now: Instant): Promise<boolean>;
}
