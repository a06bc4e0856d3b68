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

/** Tenants, people, their sessions and setup links, agent tokens and attesting hosts. */
export interface IdentityStore {
  putTenant(tenant: Tenant): Promise<void>;
  getTenant(id: string): Promise<Tenant | null>;
  listTenants(): Promise<Tenant[]>;

  /** Adds a person; false when the email is taken. */
  insertPerson(person: Person): Promise<boolean>;
  getPerson(id: string): Promise<Person | null>;
  getPersonByEmail(email: string): Promise<Person | null>;
  /** The zone a person reads times in; null: their browser's. */
  setTimeZone(personId: string, timeZone: string | null): Promise<void>;
  listPeople(tenantId: string): Promise<Person[]>;
  updatePerson(person: Person): Promise<void>;

  /** A one-time link to set a password (or, without a person, to create the first owner). */
  insertSetupLink(link: SetupLink): Promise<void>;
  /** Spends an unexpired, unspent link; null when there is none. */
  spendSetupLink(secretHash: string, now: Instant): Promise<SetupLink | null>;
  /** An unexpired, unspent link, without spending it. */
  peekSetupLink(secretHash: string, now: Instant): Promise<SetupLink | null>;

  insertSession(session: Session): Promise<void>;
  getSession(idHash: string): Promise<Session | null>;
  /** A person's sessions, live or not, the most recently used first (the account page's list). */
  listSessionsOf(personId: string): Promise<Session[]>;
  touchSession(idHash: string, now: Instant): Promise<void>;
  deleteSession(idHash: string): Promise<void>;
  /** Ends one session if it is this person's; false when they have none like that (another's included). */
  deleteSessionOf(personId: string, idHash: string): Promise<boolean>;
  /**
   * Ends every session of a person (disabled, password reset), or every one but `except` (the
   * session asking, "sign out everywhere else"); how many ended.
   */
  deleteSessionsOf(personId: string, except?: string): Promise<number>;
  /** The address the installation's server last said it serves people at; null before any served. */
  publicUrl(): Promise<string | null>;
  recordPublicUrl(url: string, at: Instant): Promise<void>;

  insertToken(token: AccessToken): Promise<void>;
  getTokenBySecretHash(secretHash: string): Promise<AccessToken | null>;
  /** A token with its person and tenant, in one statement (every agent call asks this). */
  credentialOf(secretHash: string): Promise<Credential | null>;
  listTokens(tenantId: string): Promise<AccessToken[]>;
  /** Marks a token revoked; false when there is no such live token in the tenant. */
  revokeToken(tenantId: string, id: string, now: Instant): Promise<boolean>;
  /** Sets what a live token may do; false when there is no such token or it is revoked. */
  updateTokenAccess(tenantId: string, id: string, access: Access): Promise<boolean>;
  touchToken(id: string, now: Instant): Promise<void>;

  insertHost(host: Host): Promise<void>;
  getHost(tenantId: string, id: string): Promise<Host | null>;
  listHosts(tenantId: string): Promise<Host[]>;
  revokeHost(tenantId: string, id: string, now: Instant): Promise<boolean>;
}
