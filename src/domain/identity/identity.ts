import { DomainError } from '../errors.js';
import type { Instant } from '../time/instant.js';

/** What an agent connection may do (docs/people.md): each tool names the one it needs. */
export const SCOPES = ['read', 'draft', 'write', 'sensitive'] as const;
export type Scope = (typeof SCOPES)[number];

/** A person's standing in their tenant: owners administer, approvers say yes, viewers look. */
export const ROLES = ['owner', 'approver', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const WRITE_POLICIES = ['readonly', 'draft', 'attested', 'direct'] as const;
export type WritePolicy = (typeof WRITE_POLICIES)[number];

/** Per-tenant limits on what agents may take at once; every one is configurable. */
export interface TenantLimits {
  /** Tool calls per connection per minute. */
  readonly callsPerMinute: number;
  /** HELD bookings (not lapsed) per person, across all their connections. */
  readonly activeHoldsPerPerson: number;
  /** HELD bookings (not lapsed) per connection. */
  readonly activeHoldsPerConnection: number;
  /** PENDING approvals per person. */
  readonly openApprovalsPerPerson: number;
  /**
   * Calendar-hours a person's live holds may cover at once: each hold counts its length times
   * its calendars (two rooms for three hours: 6). Holding many calendars for days denies them to
   * everyone; this caps what one person can keep from others while nobody has confirmed.
   */
  readonly heldCalendarHoursPerPerson: number;
}

/** A limit this high is no limit: nothing is counted for it (automation, benchmarks). */
export const NO_LIMIT = 1_000_000;

export const isLimited = (limit: number): boolean => limit < NO_LIMIT;

/** Every limit off: for automation and benchmarks, where a person is not on the other end. */
export const NO_LIMITS: TenantLimits = {
  callsPerMinute: NO_LIMIT,
  activeHoldsPerPerson: NO_LIMIT,
  activeHoldsPerConnection: NO_LIMIT,
  openApprovalsPerPerson: NO_LIMIT,
  heldCalendarHoursPerPerson: NO_LIMIT,
};

export const defaultTenantLimits: TenantLimits = {
  callsPerMinute: 120,
  activeHoldsPerPerson: 10,
  activeHoldsPerConnection: 10,
  openApprovalsPerPerson: 20,
  heldCalendarHoursPerPerson: 24,
};

export interface Tenant {
  readonly id: string;
  readonly name: string;
  readonly limits: TenantLimits;
  /** What a new token or OAuth connection starts with, within its person's role. */
  readonly defaultWritePolicy: WritePolicy;
  /** Which tool contract its agents get: `inherit` follows the server's `--profile`. */
  readonly toolProfile: ToolProfile;
  /** Contract tools switched off for this tenant (an incident, a trial). */
  readonly disabledTools: readonly string[];
  readonly toolMode: ToolMode;
  /** How long a person has to decide an approval; a hold waiting for that decision is kept as long. */
  readonly approvalWindowMinutes: number;
  /** False: a refused time names no other times (counter-offers off for the whole tenant); absent: true. */
  readonly offerAlternatives?: boolean;
  /** Customers' details are erased this many days after their last booking ends; null: kept until erased by hand. */
  readonly customerRetentionDays?: number | null;
  readonly createdAt: Instant;
}

/** The longest retention a tenant may set (ten years). */
export const MAX_CUSTOMER_RETENTION_DAYS = 3660;

export const DEFAULT_APPROVAL_WINDOW_MINUTES = 30;
export const MAX_APPROVAL_WINDOW_MINUTES = 24 * 60;

/**
 * Which contract a tenant's agents are served by: Holdfast's own tools (`standard`), or one of the
 * five source systems as itself (docs/contracts.md); `inherit` follows the server's `--profile`.
 */
export const TOOL_PROFILES = [
  'inherit',
  'standard',
  'hotel-ops',
  'expert-booking',
  'bookings',
  'deltat',
  'agent-access',
] as const;
/** How agents see the tools: all at once, or three catalog tools (`inherit`: the server's --tools). */
export const TOOL_MODES = ['inherit', 'flat', 'catalog'] as const;
export type ToolMode = (typeof TOOL_MODES)[number];
export type ToolProfile = (typeof TOOL_PROFILES)[number];
/** A profile itself (what `inherit` resolves to). */
export type ContractProfile = Exclude<ToolProfile, 'inherit'>;
export const CONTRACT_PROFILES = TOOL_PROFILES.filter((p): p is ContractProfile => p !== 'inherit');

/** A person who signs in to the human surfaces; one tenant each (a second tenant is a second account). */
export interface Person {
  readonly id: string;
  readonly tenantId: string;
  /** Lower-cased; what they sign in with. */
  readonly email: string;
  readonly displayName: string;
  readonly role: Role;
  /** Null until set through a setup link or reset. */
  readonly passwordHash: string | null;
  readonly disabledAt: Instant | null;
  readonly createdAt: Instant;
  /** The zone the person reads times in (their setting); unset: the zone their browser reports. */
  readonly timeZone?: string | null;
}

/** A personal access token: an agent connection acting for one person with chosen scopes. */
export interface AccessToken {
  readonly id: string;
  readonly tenantId: string;
  readonly personId: string;
  readonly name: string;
  readonly scopes: readonly Scope[];
  readonly writePolicy: WritePolicy;
  /** sha256 of the secret; the secret itself is shown once and never stored. */
  readonly secretHash: string;
  readonly createdAt: Instant;
  readonly expiresAt: Instant;
  readonly revokedAt: Instant | null;
  readonly lastUsedAt: Instant | null;
}

/** What a credential may do: its scopes and its write policy. */
export interface Access {
  readonly scopes: readonly Scope[];
  readonly writePolicy: WritePolicy;
}

/** A host application trusted to attest a user's approval, by signature with its own key. */
export interface Host {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  /** Ed25519 public key, SPKI DER base64url; the private key is given to the host once. */
  readonly publicKey: string;
  readonly createdAt: Instant;
  readonly revokedAt: Instant | null;
}

/** A signed-in person on the human pages; only the digest of its cookie value is stored. */
export interface Session {
  readonly idHash: string;
  readonly tenantId: string;
  readonly personId: string;
  /** How the person proved who they are: 'password', 'passkey', or 'oidc' (the organisation's provider). */
  readonly method: string;
  readonly createdAt: Instant;
  readonly lastSeenAt: Instant;
  /** Signs the CSRF tokens of this session's forms. */
  readonly csrfSecret: string;
}

export const SESSION_IDLE_MS = 30 * 60_000;
export const SESSION_ABSOLUTE_MS = 12 * 60 * 60_000;
export const SETUP_LINK_TTL_MS = 24 * 60 * 60_000;
export const TOKEN_DEFAULT_TTL_MS = 90 * 24 * 60 * 60_000;
export const TOKEN_MAX_TTL_MS = 366 * 24 * 60 * 60_000;

/**
 * How recently a person must have proved who they are to widen what their agents may do without
 * asking (grant a standing approval): a session left open on a shared desk is not enough.
 */
export const FRESH_SIGN_IN_MS = 10 * 60_000;

export function signedInRecently(session: Session, now: Instant): boolean {
  return now - session.createdAt < FRESH_SIGN_IN_MS;
}

export function sessionAlive(session: Session, now: Instant): boolean {
  return now - session.lastSeenAt < SESSION_IDLE_MS && now - session.createdAt < SESSION_ABSOLUTE_MS;
}

/**
 * How a page names a session in a form: the first 16 hex digits of its cookie's digest. Not a
 * credential (the digest cannot be turned back into the cookie, and nothing looks a session up
 * by it), and it means something only among the signed-in person's own sessions.
 */
export function sessionHandle(session: Pick<Session, 'idHash'>): string {
  return session.idHash.slice(0, 16);
}

/**
 * What a person's agents may be given: a token never reaches further than its person. Owners
 * administer calendars and see contact data; approvers book; viewers only look.
 */
export function scopesOfRole(role: Role): readonly Scope[] {
  return role === 'owner' ? SCOPES : role === 'approver' ? ['read', 'draft', 'write'] : ['read'];
}

export function mayApprove(person: Person): boolean {
  return person.disabledAt === null && (person.role === 'owner' || person.role === 'approver');
}

export function tokenUsable(token: AccessToken, now: Instant): boolean {
  return token.revokedAt === null && token.expiresAt > now;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}$/;

export function normalEmail(value: string, field = 'email'): string {
  const email = value.trim().toLowerCase();
  if (!EMAIL.test(email))
    throw new DomainError('INVALID_ARGUMENTS', `${field}: not an email address`, { field });
  return email;
}

/** Passwords: long enough to resist guessing once the login rate limit is met; no composition rules (NIST 800-63B). */
export function checkNewPassword(password: string): void {
  if (password.length < 12 || password.length > 256)
    throw new DomainError('INVALID_ARGUMENTS', 'password: 12 to 256 characters', { field: 'password' });
}

/**
 * Every grant includes `read` (the agent access contract): an agent that may draft or write
 * may also see what it drafts. Applied wherever scopes are given: a token, a consent, a change.
 */
export function withRead(scopes: readonly Scope[]): Scope[] {
  return scopes.includes('read') ? [...scopes] : ['read', ...scopes];
}

export function parseScopes(value: string, field = 'scopes'): Scope[] {
  const scopes = [...new Set(value.split(/[\s,]+/).filter(Boolean))];
  const unknown = scopes.find((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown !== undefined || scopes.length === 0)
    throw new DomainError('INVALID_ARGUMENTS', `${field}: one or more of ${SCOPES.join(', ')}`, { field });
  return scopes as Scope[];
}
