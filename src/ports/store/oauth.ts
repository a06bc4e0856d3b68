import type { Access } from '../../domain/identity/identity.js';
import type { OAuthConnection } from '../../domain/identity/oauth.js';
import type { Instant } from '../../domain/time/instant.js';

/** One thing the embedded authorization server keeps: a code, a refresh token, a client, a grant… */
export interface OAuthRecord {
  /** The authorization server's model name (AuthorizationCode, RefreshToken, Client, Grant, Session, Interaction…). */
  readonly kind: string;
  readonly id: string;
  /** The model's own JSON, as the authorization server wrote it. */
  readonly payload: string;
  readonly grantId: string | null;
  readonly uid: string | null;
  readonly userCode: string | null;
  /** Null: kept until removed (registered clients). */
  readonly expiresAt: Instant | null;
  readonly consumedAt: Instant | null;
}

/** A signing key of the authorization server, its private part sealed with the installation's secret. */
export interface SealedSigningKey {
  readonly kid: string;
  readonly sealed: string;
  readonly createdAt: Instant;
  /** Retired keys no longer sign; they still verify tokens signed before. */
  readonly retiredAt: Instant | null;
}

export interface OAuthStore {
  /**
   * Writes a record, or replaces the stored one's payload, grant id, uid, user code and expiry; when it was
   * consumed stays.
   */
  upsert(record: OAuthRecord): Promise<void>;
  /** An unexpired record; null otherwise. */
  find(kind: string, id: string, now: Instant): Promise<OAuthRecord | null>;
  /** The unexpired record of that kind with this uid, consumed or not; null otherwise. */
  findByUid(kind: string, uid: string, now: Instant): Promise<OAuthRecord | null>;
  /** The unexpired record of that kind with this user code, consumed or not; null otherwise. */
  findByUserCode(kind: string, userCode: string, now: Instant): Promise<OAuthRecord | null>;
  /** Marks a record consumed at `now`; it is still found, with `consumedAt` set. */
  consume(kind: string, id: string, now: Instant): Promise<void>;
  /** Removes one record, if there is one. */
  destroy(kind: string, id: string): Promise<void>;
  /** Removes every record of a grant (its codes, refresh tokens, the grant) and revokes its connection. */
  revokeGrant(grantId: string, now: Instant): Promise<void>;
  /** A client someone connected is kept for good (registered clients are forgotten unless connected). */
  keepClient(clientId: string): Promise<void>;
  /** Removes expired records; returns how many. */
  sweep(now: Instant): Promise<number>;

  /** Every signing key, the newest first, retired ones included. */
  signingKeys(): Promise<SealedSigningKey[]>;
  /** Stores a new signing key. */
  addSigningKey(key: SealedSigningKey): Promise<void>;
  /** Retires every key but `kid`. */
  retireSigningKeysExcept(kid: string, now: Instant): Promise<void>;
  /** Removes keys retired before `retiredBefore` (tokens they signed no longer verify); returns how many. */
  removeRetiredSigningKeys(retiredBefore: Instant): Promise<number>;

  /** Records a connection a person consented to, keyed by its grant id. */
  insertConnection(connection: OAuthConnection): Promise<void>;
  /** The connection of a grant, in any tenant and revoked or not; null when there is none. */
  getConnection(grantId: string): Promise<OAuthConnection | null>;
  /** The tenant's connections (only the person's, with `personId`), revoked ones included, oldest first. */
  listConnections(tenantId: string, personId?: string): Promise<OAuthConnection[]>;
  /** False when there is no live connection of that grant in the tenant. */
  revokeConnection(tenantId: string, grantId: string, now: Instant): Promise<boolean>;
  /** Sets what a live connection may do; false when there is no such connection or it is revoked. */
  updateConnectionAccess(tenantId: string, grantId: string, access: Access): Promise<boolean>;
  /** Sets the connection's last-used time to `now`. */
  touchConnection(grantId: string, now: Instant): Promise<void>;
}
