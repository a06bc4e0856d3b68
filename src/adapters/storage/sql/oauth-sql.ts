import type { OAuthConnection } from '../../../domain/identity/oauth.js';
import type { Access, Scope, WritePolicy } from '../../../domain/identity/identity.js';
import type { Instant } from '../../../domain/time/instant.js';
import type { OAuthRecord, OAuthStore, SealedSigningKey } from '../../../ports/store/index.js';
import type { SqlRunner } from './sql-runner.js';

type N = number | string | null;
const num = (v: N): number | null => (v === null ? null : Number(v));

interface RecordRow {
  kind: string;
  id: string;
  payload: string;
  grant_id: string | null;
  uid: string | null;
  user_code: string | null;
  expires_at: N;
  consumed_at: N;
}
interface KeyRow {
  kid: string;
  sealed: string;
  created_at: N;
  retired_at: N;
}
interface ConnectionRow {
  grant_id: string;
  tenant_id: string;
  person_id: string;
  client_id: string;
  client_name: string;
  redirect_host: string;
  scopes: string;
  write_policy: WritePolicy;
  created_at: N;
  revoked_at: N;
  last_used_at: N;
}

const recordOf = (r: RecordRow): OAuthRecord => ({
  kind: r.kind,
  id: r.id,
  payload: r.payload,
  grantId: r.grant_id,
  uid: r.uid,
  userCode: r.user_code,
  expiresAt: num(r.expires_at),
  consumedAt: num(r.consumed_at),
});

const connectionOf = (r: ConnectionRow): OAuthConnection => ({
  grantId: r.grant_id,
  tenantId: r.tenant_id,
  personId: r.person_id,
  clientId: r.client_id,
  clientName: r.client_name,
  redirectHost: r.redirect_host,
  scopes: JSON.parse(r.scopes) as Scope[],
  writePolicy: r.write_policy,
  createdAt: Number(r.created_at),
  revokedAt: num(r.revoked_at),
  lastUsedAt: num(r.last_used_at),
});

const LIVE = '(expires_at IS NULL OR expires_at > ?)';

export class OAuthSql implements OAuthStore {
  constructor(private readonly db: SqlRunner) {}

  async upsert(r: OAuthRecord): Promise<void> {
    await this.db.run(
      `INSERT INTO oauth_records (kind, id, payload, grant_id, uid, user_code, expires_at, consumed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (kind, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id,
         uid = excluded.uid, user_code = excluded.user_code, expires_at = excluded.expires_at`,
      [r.kind, r.id, r.payload, r.grantId, r.uid, r.userCode, r.expiresAt, r.consumedAt],
    );
  }

  private async one(where: string, params: unknown[]): Promise<OAuthRecord | null> {
    const [row] = await this.db.all<RecordRow>(`SELECT * FROM oauth_records WHERE ${where} LIMIT 1`, params);
    return row ? recordOf(row) : null;
  }

  find(kind: string, id: string, now: Instant): Promise<OAuthRecord | null> {
    return this.one(`kind = ? AND id = ? AND ${LIVE}`, [kind, id, now]);
  }

  findByUid(kind: string, uid: string, now: Instant): Promise<OAuthRecord | null> {
    return this.one(`kind = ? AND uid = ? AND ${LIVE}`, [kind, uid, now]);
  }

  findByUserCode(kind: string, userCode: string, now: Instant): Promise<OAuthRecord | null> {
    return this.one(`kind = ? AND user_code = ? AND ${LIVE}`, [kind, userCode, now]);
  }

  async consume(kind: string, id: string, now: Instant): Promise<void> {
    await this.db.run('UPDATE oauth_records SET consumed_at = ? WHERE kind = ? AND id = ?', [now, kind, id]);
  }

  async destroy(kind: string, id: string): Promise<void> {
    await this.db.run('DELETE FROM oauth_records WHERE kind = ? AND id = ?', [kind, id]);
  }

  async revokeGrant(grantId: string, now: Instant): Promise<void> {
    await this.db.run('DELETE FROM oauth_records WHERE grant_id = ?', [grantId]);
    await this.db.run("DELETE FROM oauth_records WHERE kind = 'Grant' AND id = ?", [grantId]);
    await this.db.run(
      'UPDATE oauth_connections SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL',
      [now, grantId],
    );
  }

  async keepClient(clientId: string): Promise<void> {
    await this.db.run("UPDATE oauth_records SET expires_at = NULL WHERE kind = 'Client' AND id = ?", [
      clientId,
    ]);
  }

  sweep(now: Instant): Promise<number> {
    return this.db.run('DELETE FROM oauth_records WHERE expires_at IS NOT NULL AND expires_at <= ?', [now]);
  }

  async signingKeys(): Promise<SealedSigningKey[]> {
    const rows = await this.db.all<KeyRow>('SELECT * FROM oauth_signing_keys ORDER BY created_at DESC, kid');
    return rows.map((r) => ({
      kid: r.kid,
      sealed: r.sealed,
      createdAt: Number(r.created_at),
      retiredAt: num(r.retired_at),
    }));
  }

  async addSigningKey(k: SealedSigningKey): Promise<void> {
    await this.db.run(
      'INSERT INTO oauth_signing_keys (kid, sealed, created_at, retired_at) VALUES (?, ?, ?, ?)',
      [k.kid, k.sealed, k.createdAt, k.retiredAt],
    );
  }

  async retireSigningKeysExcept(kid: string, now: Instant): Promise<void> {
    await this.db.run('UPDATE oauth_signing_keys SET retired_at = ? WHERE kid <> ? AND retired_at IS NULL', [
      now,
      kid,
    ]);
  }

  async removeRetiredSigningKeys(retiredBefore: Instant): Promise<number> {
    return this.db.run('DELETE FROM oauth_signing_keys WHERE retired_at IS NOT NULL AND retired_at < ?', [
      retiredBefore,
    ]);
  }

  async insertConnection(c: OAuthConnection): Promise<void> {
    await this.db.run(
      `INSERT INTO oauth_connections (grant_id, tenant_id, person_id, client_id, client_name, redirect_host,
         scopes, write_policy, created_at, revoked_at, last_used_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        c.grantId,
        c.tenantId,
        c.personId,
        c.clientId,
        c.clientName,
        c.redirectHost,
        JSON.stringify(c.scopes),
        c.writePolicy,
        c.createdAt,
        c.revokedAt,
        c.lastUsedAt,
      ],
    );
  }

  async getConnection(grantId: string): Promise<OAuthConnection | null> {
    const [row] = await this.db.all<ConnectionRow>('SELECT * FROM oauth_connections WHERE grant_id = ?', [
      grantId,
    ]);
    return row ? connectionOf(row) : null;
  }

  async listConnections(tenantId: string, personId?: string): Promise<OAuthConnection[]> {
    const rows = await this.db.all<ConnectionRow>(
      `SELECT * FROM oauth_connections WHERE tenant_id = ? ${personId ? 'AND person_id = ?' : ''}
       ORDER BY created_at, grant_id`,
      personId ? [tenantId, personId] : [tenantId],
    );
    return rows.map(connectionOf);
  }

  async revokeConnection(tenantId: string, grantId: string, now: Instant): Promise<boolean> {
    const changed = await this.db.run(
      'UPDATE oauth_connections SET revoked_at = ? WHERE tenant_id = ? AND grant_id = ? AND revoked_at IS NULL',
      [now, tenantId, grantId],
    );
    return changed === 1;
  }

  async updateConnectionAccess(tenantId: string, grantId: string, access: Access): Promise<boolean> {
    const changed = await this.db.run(
      'UPDATE oauth_connections SET scopes = ?, write_policy = ? WHERE tenant_id = ? AND grant_id = ? AND revoked_at IS NULL',
      [JSON.stringify(access.scopes), access.writePolicy, tenantId, grantId],
    );
    return changed === 1;
  }

  async touchConnection(grantId: string, now: Instant): Promise<void> {
    await this.db.run('UPDATE oauth_connections SET last_used_at = ? WHERE grant_id = ?', [now, grantId]);
  }
}
