import type {
  Access,
  AccessToken,
  Host,
  Person,
  Role,
  Scope,
  Session,
  Tenant,
  TenantLimits,
  WritePolicy,
} from '../../../domain/identity/identity.js';
import { DEFAULT_APPROVAL_WINDOW_MINUTES, defaultTenantLimits } from '../../../domain/identity/identity.js';
import type { ToolMode, ToolProfile } from '../../../domain/identity/identity.js';
import type { Instant } from '../../../domain/time/instant.js';
import type { Credential, IdentityStore, SetupLink } from '../../../ports/store/index.js';
import type { SqlRunner } from './sql-runner.js';

const n = (v: number | string | null): number | null => (v === null ? null : Number(v));

interface TenantRow {
  id: string;
  name: string;
  limits: string;
  default_write_policy: string;
  /** Absent where a query joins only the columns a credential check needs. */
  tool_profile?: string;
  disabled_tools?: string;
  tool_mode?: string;
  approval_window_minutes?: number | string;
  created_at: number | string;
}
interface PersonRow {
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
interface TokenRow {
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
interface HostRow {
  id: string;
  tenant_id: string;
  name: string;
  public_key: string;
  created_at: number | string;
  revoked_at: number | string | null;
}
interface SessionRow {
  id_hash: string;
  tenant_id: string;
  person_id: string;
  method: string;
  created_at: number | string;
  last_seen_at: number | string;
  csrf_secret: string;
}

const tenantOf = (r: TenantRow): Tenant => ({
  id: r.id,
  name: r.name,
  // Limits added in later releases take their defaults.
  limits: { ...defaultTenantLimits, ...(JSON.parse(r.limits) as Partial<TenantLimits>) },
  defaultWritePolicy: r.default_write_policy as WritePolicy,
  toolProfile: (r.tool_profile ?? 'inherit') as ToolProfile,
  disabledTools: JSON.parse(r.disabled_tools ?? '[]') as string[],
  toolMode: (r.tool_mode ?? 'inherit') as ToolMode,
  approvalWindowMinutes: Number(r.approval_window_minutes ?? DEFAULT_APPROVAL_WINDOW_MINUTES),
  createdAt: Number(r.created_at),
});
const personOf = (r: PersonRow): Person => ({
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
const tokenOf = (r: TokenRow): AccessToken => ({
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
const hostOf = (r: HostRow): Host => ({
  id: r.id,
  tenantId: r.tenant_id,
  name: r.name,
  publicKey: r.public_key,
  createdAt: Number(r.created_at),
  revokedAt: n(r.revoked_at),
});
const sessionOf = (r: SessionRow): Session => ({
  idHash: r.id_hash,
  tenantId: r.tenant_id,
  personId: r.person_id,
  method: r.method,
  createdAt: Number(r.created_at),
  lastSeenAt: Number(r.last_seen_at),
  csrfSecret: r.csrf_secret,
});

export class IdentitySql implements IdentityStore {
  constructor(private readonly db: SqlRunner) {}

  async putTenant(t: Tenant): Promise<void> {
    await this.db.run(
      `INSERT INTO tenants (id, name, limits, default_write_policy, tool_profile, disabled_tools, tool_mode,
         approval_window_minutes, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, limits = excluded.limits,
         default_write_policy = excluded.default_write_policy, tool_profile = excluded.tool_profile,
         disabled_tools = excluded.disabled_tools, tool_mode = excluded.tool_mode,
         approval_window_minutes = excluded.approval_window_minutes`,
      [
        t.id,
        t.name,
        JSON.stringify(t.limits),
        t.defaultWritePolicy,
        t.toolProfile,
        JSON.stringify(t.disabledTools),
        t.toolMode,
        t.approvalWindowMinutes,
        t.createdAt,
      ],
    );
  }

  async getTenant(id: string): Promise<Tenant | null> {
    const [row] = await this.db.all<TenantRow>('SELECT * FROM tenants WHERE id = ?', [id]);
    return row ? tenantOf(row) : null;
  }

  async listTenants(): Promise<Tenant[]> {
    return (await this.db.all<TenantRow>('SELECT * FROM tenants ORDER BY id')).map(tenantOf);
  }

  async insertPerson(p: Person): Promise<boolean> {
    const added = await this.db.run(
      `INSERT INTO people (id, tenant_id, email, display_name, role, password_hash, disabled_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (email) DO NOTHING`,
      [p.id, p.tenantId, p.email, p.displayName, p.role, p.passwordHash, p.disabledAt, p.createdAt],
    );
    return added === 1;
  }

  async getPerson(id: string): Promise<Person | null> {
    const [row] = await this.db.all<PersonRow>('SELECT * FROM people WHERE id = ?', [id]);
    return row ? personOf(row) : null;
  }

  async getPersonByEmail(email: string): Promise<Person | null> {
    const [row] = await this.db.all<PersonRow>('SELECT * FROM people WHERE email = ?', [email]);
    return row ? personOf(row) : null;
  }

  async listPeople(tenantId: string): Promise<Person[]> {
    return (
      await this.db.all<PersonRow>('SELECT * FROM people WHERE tenant_id = ? ORDER BY created_at, id', [
        tenantId,
      ])
    ).map(personOf);
  }

  async updatePerson(p: Person): Promise<void> {
    await this.db.run(
      'UPDATE people SET display_name = ?, role = ?, password_hash = ?, disabled_at = ? WHERE id = ?',
      [p.displayName, p.role, p.passwordHash, p.disabledAt, p.id],
    );
  }

  async setTimeZone(personId: string, timeZone: string | null): Promise<void> {
    await this.db.run('UPDATE people SET time_zone = ? WHERE id = ?', [timeZone, personId]);
  }

  async insertSetupLink(link: SetupLink): Promise<void> {
    await this.db.run(
      'INSERT INTO setup_links (secret_hash, tenant_id, person_id, expires_at) VALUES (?, ?, ?, ?)',
      [link.secretHash, link.tenantId, link.personId, link.expiresAt],
    );
  }

  async peekSetupLink(secretHash: string, now: Instant): Promise<SetupLink | null> {
    const [row] = await this.db.all<{
      secret_hash: string;
      tenant_id: string;
      person_id: string | null;
      expires_at: number | string;
    }>(
      'SELECT secret_hash, tenant_id, person_id, expires_at FROM setup_links WHERE secret_hash = ? AND spent_at IS NULL AND expires_at > ?',
      [secretHash, now],
    );
    return row
      ? {
          secretHash: row.secret_hash,
          tenantId: row.tenant_id,
          personId: row.person_id,
          expiresAt: Number(row.expires_at),
        }
      : null;
  }

  async spendSetupLink(secretHash: string, now: Instant): Promise<SetupLink | null> {
    const link = await this.peekSetupLink(secretHash, now);
    if (link === null) return null;
    const spent = await this.db.run(
      'UPDATE setup_links SET spent_at = ? WHERE secret_hash = ? AND spent_at IS NULL',
      [now, secretHash],
    );
    return spent === 1 ? link : null;
  }

  async insertSession(s: Session): Promise<void> {
    await this.db.run(
      `INSERT INTO sessions (id_hash, tenant_id, person_id, method, created_at, last_seen_at, csrf_secret)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      [s.idHash, s.tenantId, s.personId, s.method, s.createdAt, s.lastSeenAt, s.csrfSecret],
    );
  }

  async getSession(idHash: string): Promise<Session | null> {
    const [row] = await this.db.all<SessionRow>('SELECT * FROM sessions WHERE id_hash = ?', [idHash]);
    return row ? sessionOf(row) : null;
  }

  async listSessionsOf(personId: string): Promise<Session[]> {
    const rows = await this.db.all<SessionRow>(
      'SELECT * FROM sessions WHERE person_id = ? ORDER BY last_seen_at DESC, created_at DESC, id_hash',
      [personId],
    );
    return rows.map(sessionOf);
  }

  async touchSession(idHash: string, now: Instant): Promise<void> {
    await this.db.run('UPDATE sessions SET last_seen_at = ? WHERE id_hash = ?', [now, idHash]);
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.db.run('DELETE FROM sessions WHERE id_hash = ?', [idHash]);
  }

  async deleteSessionOf(personId: string, idHash: string): Promise<boolean> {
    const ended = await this.db.run('DELETE FROM sessions WHERE id_hash = ? AND person_id = ?', [
      idHash,
      personId,
    ]);
    return ended === 1;
  }

  async deleteSessionsOf(personId: string, except?: string): Promise<number> {
    return except === undefined
      ? this.db.run('DELETE FROM sessions WHERE person_id = ?', [personId])
      : this.db.run('DELETE FROM sessions WHERE person_id = ? AND id_hash <> ?', [personId, except]);
  }

  async publicUrl(): Promise<string | null> {
    const [row] = await this.db.all<{ value: string }>(
      "SELECT value FROM installation WHERE key = 'public_url'",
    );
    return row?.value ?? null;
  }

  async recordPublicUrl(url: string, at: Instant): Promise<void> {
    await this.db.run(
      `INSERT INTO installation (key, value, updated_at) VALUES ('public_url', ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      [url, at],
    );
  }

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
        n_created_at: number | string;
      }
    >(
      `SELECT t.*, p.tenant_id AS p_tenant_id, p.email AS p_email, p.display_name AS p_display_name,
         p.role AS p_role, p.password_hash AS p_password_hash, p.disabled_at AS p_disabled_at,
         p.created_at AS p_created_at, n.name AS n_name, n.limits AS n_limits,
         n.default_write_policy AS n_default_write_policy, n.tool_mode AS n_tool_mode,
         n.created_at AS n_created_at
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

  async insertHost(h: Host): Promise<void> {
    await this.db.run(
      'INSERT INTO hosts (id, tenant_id, name, public_key, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?)',
      [h.id, h.tenantId, h.name, h.publicKey, h.createdAt, h.revokedAt],
    );
  }

  async getHost(tenantId: string, id: string): Promise<Host | null> {
    const [row] = await this.db.all<HostRow>('SELECT * FROM hosts WHERE tenant_id = ? AND id = ?', [
      tenantId,
      id,
    ]);
    return row ? hostOf(row) : null;
  }

  async listHosts(tenantId: string): Promise<Host[]> {
    return (
      await this.db.all<HostRow>('SELECT * FROM hosts WHERE tenant_id = ? ORDER BY created_at, id', [
        tenantId,
      ])
    ).map(hostOf);
  }

  async revokeHost(tenantId: string, id: string, now: Instant): Promise<boolean> {
    const changed = await this.db.run(
      'UPDATE hosts SET revoked_at = ? WHERE tenant_id = ? AND id = ? AND revoked_at IS NULL',
      [now, tenantId, id],
    );
    return changed === 1;
  }
}
