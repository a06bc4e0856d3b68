import type { Access, AccessToken, Host, Person, Session, Tenant } from '../../domain/identity/identity.js';
import type { Instant } from '../../domain/time/instant.js';

export interface Credential {
  readonly token: AccessToken;
  readonly person: Person;
  readonly tenant: Tenant;
}

export interface SetupLink {
  readonly secretHash: string;
  readonly tenantId: string;
  /** Null: the link creates the tenant's first owner. */
  readonly personId: string | null;
  readonly expiresAt: Instant;
}

/** Tenants of the installation, and the address it serves people at. */
export interface TenantStore {
  /** Adds a tenant, or overwrites the stored one's name, limits and settings; its creation time stays. */
  putTenant(tenant: Tenant): Promise<void>;
  /** The tenant with this id; null when there is none. */
  getTenant(id: string): Promise<Tenant | null>;
  /** Every tenant of the installation, by id. */
  listTenants(): Promise<Tenant[]>;
  /** The address the installation's server last said it serves people at; null before any served. */
  publicUrl(): Promise<string | null>;
  /**
   * Remembers the address the server now serves people at (what publicUrl returns), replacing the last one.
   */
  recordPublicUrl(url: string, at: Instant): Promise<void>;
}

/** A tenant's people and their one-time setup links. */
export interface PeopleStore {
  /** Adds a person; false when the email is taken. */
  insertPerson(person: Person): Promise<boolean>;
  /** The person with this id, in any tenant, disabled or not; null when there is none. */
  getPerson(id: string): Promise<Person | null>;
  /**
   * The person with exactly this email (unique across tenants; compared as given, so normalise it first);
   * null when none.
   */
  getPersonByEmail(email: string): Promise<Person | null>;
  /** The zone a person reads times in; null: their browser's. */
  setTimeZone(personId: string, timeZone: string | null): Promise<void>;
  /** The tenant's people, disabled ones included, oldest first. */
  listPeople(tenantId: string): Promise<Person[]>;
  /**
   * Overwrites the person's display name, role, password hash and disabled time (not email, tenant or time
   * zone), without a version check.
   */
  updatePerson(person: Person): Promise<void>;
  /** A one-time link to set a password (or, without a person, to create the first owner). */
  insertSetupLink(link: SetupLink): Promise<void>;
  /** Spends an unexpired, unspent link; null when there is none. */
  spendSetupLink(secretHash: string, now: Instant): Promise<SetupLink | null>;
  /** An unexpired, unspent link, without spending it. */
  peekSetupLink(secretHash: string, now: Instant): Promise<SetupLink | null>;
}

/** People's signed-in browser sessions, keyed by the digest of the cookie's secret. */
export interface SessionStore {
  /** Stores a new session, keyed by the digest of its cookie's secret. */
  insertSession(session: Session): Promise<void>;
  /**
   * The session with this id digest, whether or not still live (its age is the caller's to judge); null when
   * unknown.
   */
  getSession(idHash: string): Promise<Session | null>;
  /** A person's sessions, live or not, the most recently used first (the account page's list). */
  listSessionsOf(personId: string): Promise<Session[]>;
  /** Sets the session's last-seen time to `now`. */
  touchSession(idHash: string, now: Instant): Promise<void>;
  /** Ends the session with this id digest, if there is one. */
  deleteSession(idHash: string): Promise<void>;
  /** Ends one session if it is this person's; false when they have none like that (another's included). */
  deleteSessionOf(personId: string, idHash: string): Promise<boolean>;
  /**
   * Ends every session of a person (disabled, password reset), or every one but `except` (the
   * session asking, "sign out everywhere else"); how many ended.
   */
  deleteSessionsOf(personId: string, except?: string): Promise<number>;
}

/** Agents' bearer tokens, keyed by the digest of their secret. */
export interface TokenStore {
  /** Stores a new agent token, keyed by the digest of its secret. */
  insertToken(token: AccessToken): Promise<void>;
  /** The token with this secret digest, expired and revoked ones included; null when unknown. */
  getTokenBySecretHash(secretHash: string): Promise<AccessToken | null>;
  /** The tenant's token with this id, expired and revoked ones included; null when unknown. */
  getToken(tenantId: string, id: string): Promise<AccessToken | null>;
  /** A token with its person and tenant, in one statement (every agent call asks this). */
  credentialOf(secretHash: string): Promise<Credential | null>;
  /** The tenant's tokens, expired and revoked ones included, oldest first. */
  listTokens(tenantId: string): Promise<AccessToken[]>;
  /** Marks a token revoked; false when there is no such live token in the tenant. */
  revokeToken(tenantId: string, id: string, now: Instant): Promise<boolean>;
  /** Sets what a live token may do; false when there is no such token or it is revoked. */
  updateTokenAccess(tenantId: string, id: string, access: Access): Promise<boolean>;
  /** Sets the token's last-used time to `now`. */
  touchToken(id: string, now: Instant): Promise<void>;
}

/** Hosts whose signed attestations vouch for the person at the keyboard. */
export interface HostStore {
  /** Registers a host with the public key its attestations are checked against. */
  insertHost(host: Host): Promise<void>;
  /** The tenant's host with this id, revoked or not; null when there is none in the tenant. */
  getHost(tenantId: string, id: string): Promise<Host | null>;
  /** The tenant's hosts, revoked ones included, oldest first. */
  listHosts(tenantId: string): Promise<Host[]>;
  /** Marks a host revoked; false when there is no such unrevoked host in the tenant. */
  revokeHost(tenantId: string, id: string, now: Instant): Promise<boolean>;
}
