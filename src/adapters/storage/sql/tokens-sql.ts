import type { Access, AccessToken, Role } from '../../../domain/identity/identity.js';
import type { Instant } from '../../../domain/time/instant.js';
import type { Credential, TokenStore } from '../../../ports/store/index.js';
import type { TokenRow } from './identity-rows.js';
import { tenantOf, personOf, tokenOf } from './identity-rows.js';
import type { SqlRunner } from './sql-runner.js';

/** Agents' bearer tokens and the credential every call checks. */
export class TokensSql implements TokenStore {
  constructor(private readonly db: SqlRunner) {}

  async insertToken(t: AccessToken): Promise<void> {
    await this.db.run(
      `INSERT INTO access_tokens (id, tenant_id, person_id, name, scopes, write_policy, secret_hash,
         created_at, expires_at, revoked_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        t.id,
        t.tenantId,
        t.personId,
        t.name,
        t.scopes.join(' '),
        t.writePolicy,
        t.secretHash,
        t.createdAt,
        t.expiresAt,
        t.revokedAt,
        t.lastUsedAt,
      ],
    );
  }

  async getTokenBySecretHash(secretHash: string): Promise<AccessToken | null> {
    const [row] = await this.db.all<TokenRow>('SELECT * FROM access_tokens WHERE secret_hash = ?', [
      secretHash,
    ]);
    return row ? tokenOf(row) : null;
  }

  async getToken(tenantId: string, id: string): Promise<AccessToken | null> {
    const [row] = await this.db.all<TokenRow>('SELECT * FROM access_tokens WHERE tenant_id = ? AND id = ?', [
      tenantId,
      id,
    ]);
    return row ? tokenOf(row) : null;
  }

  async credentialOf(secretHash: string): Promise<Credential | null> {
    const [row] = await this.db.all<
      TokenRow & {
        p_tenant_id: string;
        p_email: string;
        p_display_name: string;
        p_role: Role;
        p_password_hash: string | null;
        p_disabled_at: number | string | null;
        p_created_at: number | string;
        n_name: string;
        n_limits: string;
        n_default_write_policy: string;
        n_tool_mode: string;
        n_profile: string;
        n_created_at: number | string;
      }
    >(
      `SELECT t.*, p.tenant_id AS p_tenant_id, p.email AS p_email, p.display_name AS p_display_name,
         p.role AS p_role, p.password_hash AS p_password_hash, p.disabled_at AS p_disabled_at,
         p.created_at AS p_created_at, n.name AS n_name, n.limits AS n_limits,
         n.default_write_policy AS n_default_write_policy, n.tool_mode AS n_tool_mode,
         n.profile AS n_profile, n.created_at AS n_created_at
       FROM access_tokens t JOIN people p ON p.id = t.person_id JOIN tenants n ON n.id = t.tenant_id
       WHERE t.secret_hash = ?`,
      [secretHash],
    );
    if (!row) return null;
    return {
      token: tokenOf(row),
      person: personOf({
        id: row.person_id,
        tenant_id: row.p_tenant_id,
        email: row.p_email,
        display_name: row.p_display_name,
        role: row.p_role,
        password_hash: row.p_password_hash,
        disabled_at: row.p_disabled_at,
        created_at: row.p_created_at,
      }),
      tenant: tenantOf({
        id: row.tenant_id,
        name: row.n_name,
        limits: row.n_limits,
        default_write_policy: row.n_default_write_policy,
        tool_mode: row.n_tool_mode,
        profile: row.n_profile,
        created_at: row.n_created_at,
      }),
    };
  }

  async listTokens(tenantId: string): Promise<AccessToken[]> {
    return (
      await this.db.all<TokenRow>('SELECT * FROM access_tokens WHERE tenant_id = ? ORDER BY created_at, id', [
        tenantId,
      ])
    ).map(tokenOf);
  }

  async revokeToken(tenantId: string, id: string, now: Instant): Promise<boolean> {
    const changed = await this.db.run(
      'UPDATE access_tokens SET revoked_at = ? WHERE tenant_id = ? AND id = ? AND revoked_at IS NULL',
      [now, tenantId, id],
    );
    return changed === 1;
  }

  async updateTokenAccess(tenantId: string, id: string, access: Access): Promise<boolean> {
    const changed = await this.db.run(
      'UPDATE access_tokens SET scopes = ?, write_policy = ? WHERE tenant_id = ? AND id = ? AND revoked_at IS NULL',
      [access.scopes.join(' '), access.writePolicy, tenantId, id],
    );
    return changed === 1;
  }

  async touchToken(id: string, now: Instant): Promise<void> {
    await this.db.run('UPDATE access_tokens SET last_used_at = ? WHERE id = ?', [now, id]);
  }
}
