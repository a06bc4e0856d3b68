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
  upsert(record: OAuthRecord): Promise<void>;
  /** An unexpired record; null otherwise. */
  find(kind: string, id: string, now: Instant): Promise<OAuthRecord | null>;
  findByUid(kind: string, uid: string, now: Instant): Promise<OAuthRecord | null>;
  findByUserCode(kind: string, userCode: string, now: Instant): Promise<OAuthRecord | null>;
  consume(kind: string, id: string, now: Instant): Promise<void>;
  destroy(kind: string, id: string): Promise<void>;
  /** Removes every record of a grant (its codes, refresh tokens, the grant) and revokes its connection. */
  revokeGrant(grantId: string, now: Instant): Promise<void>;
  /** A client someone connected is kept for good (registered clients are forgotten unless connected). */
  keepClient(clientId: string): Promise<void>;
  /** Removes expired records; returns how many. */
  sweep(now: Instant): Promise<number>;

  signingKeys(): Promise<SealedSigningKey[]>;
  addSigningKey(key: SealedSigningKey): Promise<void>;
  /** Retires every key but `kid`. */
  retireSigningKeysExcept(kid: string, now: Instant): Promise<void>;
  /** Removes keys retired before `retiredBefore` (tokens they signed no longer verify); returns how many. */
  removeRetiredSigningKeys(retiredBefore: Instant): Promise<number>;

  insertConnection(connection: OAuthConnection): Promise<void>;
  getConnection(grantId: string): Promise<OAuthConnection | null>;
  listConnections(tenantId: string, personId?: string): Promise<OAuthConnection[]>;
  /** False when there is no live connection of that grant in the tenant. */
  revokeConnection(tenantId: string, grantId: string, now: Instant): Promise<boolean>;
  /** Sets what a live connection may do; false when there is no such connection or it is revoked. */
  updateConnectionAccess(tenantId: string, grantId: string, access: Access): Promise<boolean>;
  touchConnection(grantId: string, now: Instant): Promise<void>;
}
