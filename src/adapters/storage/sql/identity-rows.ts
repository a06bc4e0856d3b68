import type {
  AccessToken,
  Host,
  Person,
  Role,
  Scope,
  Session,
  Tenant,
  TenantLimits,
  WritePolicy,
  ToolMode,
  ToolProfile,
} from '../../../domain/identity/identity.js';
import { DEFAULT_APPROVAL_WINDOW_MINUTES, defaultTenantLimits } from '../../../domain/identity/identity.js';

/** How the identity tables read back into the domain (shared by the tenants, people, sessions, tokens and hosts SQL). */
export const n = (v: number | string | null): number | null => (v === null ? null : Number(v));

export interface TenantRow {
  id: string;
  name: string;
  limits: string;
  default_write_policy: string;
  /** Absent where a query joins only the columns a credential check needs. */
  tool_profile?: string;
  /** The contract profile (migration 33); tool_profile is what older releases read. */
  profile?: string;
  disabled_tools?: string;
  tool_mode?: string;
  approval_window_minutes?: number | string;
  offer_alternatives?: number | string;
  customer_retention_days?: number | string | null;
  created_at: number | string;
}
export interface PersonRow {
  id: string;
  tenant_id: string;
  email: string;
  display_name: string;
  time_zone?: string | null;
  role: Role;
  password_hash: string | null;
  disabled_at: number | string | null;
  created_at: number | string;
}
export interface TokenRow {
  id: string;
  tenant_id: string;
  person_id: string;
  name: string;
  scopes: string;
  write_policy: WritePolicy;
  secret_hash: string;
  created_at: number | string;
  expires_at: number | string;
  revoked_at: number | string | null;
  last_used_at: number | string | null;
}
export interface HostRow {
  id: string;
  tenant_id: string;
  name: string;
  public_key: string;
  created_at: number | string;
  revoked_at: number | string | null;
}
export interface SessionRow {
  id_hash: string;
  tenant_id: string;
  person_id: string;
  method: string;
  created_at: number | string;
  last_seen_at: number | string;
  csrf_secret: string;
}

export const tenantOf = (r: TenantRow): Tenant => ({
  id: r.id,
  name: r.name,
  // Limits added in later releases take their defaults.
  limits: { ...defaultTenantLimits, ...(JSON.parse(r.limits) as Partial<TenantLimits>) },
  defaultWritePolicy: r.default_write_policy as WritePolicy,
  toolProfile: (r.profile ?? r.tool_profile ?? 'inherit') as ToolProfile,
  disabledTools: JSON.parse(r.disabled_tools ?? '[]') as string[],
  toolMode: (r.tool_mode ?? 'inherit') as ToolMode,
  approvalWindowMinutes: Number(r.approval_window_minutes ?? DEFAULT_APPROVAL_WINDOW_MINUTES),
  offerAlternatives: Number(r.offer_alternatives ?? 1) !== 0,
  customerRetentionDays:
    r.customer_retention_days === null || r.customer_retention_days === undefined
      ? null
      : Number(r.customer_retention_days),
  createdAt: Number(r.created_at),
});
export const personOf = (r: PersonRow): Person => ({
  id: r.id,
  tenantId: r.tenant_id,
  email: r.email,
  displayName: r.display_name,
  timeZone: r.time_zone ?? null,
  role: r.role,
  passwordHash: r.password_hash,
  disabledAt: n(r.disabled_at),
  createdAt: Number(r.created_at),
});
export const tokenOf = (r: TokenRow): AccessToken => ({
  id: r.id,
  tenantId: r.tenant_id,
  personId: r.person_id,
  name: r.name,
  scopes: r.scopes.split(' ') as Scope[],
  writePolicy: r.write_policy,
  secretHash: r.secret_hash,
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
  revokedAt: n(r.revoked_at),
  lastUsedAt: n(r.last_used_at),
});
export const hostOf = (r: HostRow): Host => ({
  id: r.id,
  tenantId: r.tenant_id,
  name: r.name,
  publicKey: r.public_key,
  createdAt: Number(r.created_at),
  revokedAt: n(r.revoked_at),
});
export const sessionOf = (r: SessionRow): Session => ({
  idHash: r.id_hash,
  tenantId: r.tenant_id,
  personId: r.person_id,
  method: r.method,
  createdAt: Number(r.created_at),
  lastSeenAt: Number(r.last_seen_at),
  csrfSecret: r.csrf_secret,
});
