import type { Tenant } from '../../../domain/identity/identity.js';
import type { Instant } from '../../../domain/time/instant.js';
import type { TenantStore } from '../../../ports/store/index.js';
import type { TenantRow } from './identity-rows.js';
import { tenantOf } from './identity-rows.js';
import type { SqlRunner } from './sql-runner.js';

const LEGACY_PROFILES = new Set(['inherit', 'hotel-ops', 'standard']);

/** Tenants of the installation and the address it serves people at. */
export class TenantsSql implements TenantStore {
  constructor(private readonly db: SqlRunner) {}

  async putTenant(t: Tenant): Promise<void> {
    await this.db.run(
      `INSERT INTO tenants (id, name, limits, default_write_policy, tool_profile, profile, disabled_tools, tool_mode,
         approval_window_minutes, offer_alternatives, customer_retention_days, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, limits = excluded.limits,
         default_write_policy = excluded.default_write_policy, tool_profile = excluded.tool_profile,
         profile = excluded.profile,
         disabled_tools = excluded.disabled_tools, tool_mode = excluded.tool_mode,
         approval_window_minutes = excluded.approval_window_minutes,
         offer_alternatives = excluded.offer_alternatives,
         customer_retention_days = excluded.customer_retention_days`,
      [
        t.id,
        t.name,
        JSON.stringify(t.limits),
        t.defaultWritePolicy,
        // What an older release reads (its own three values): a newer profile reads as inherit there.
        LEGACY_PROFILES.has(t.toolProfile) ? t.toolProfile : 'inherit',
        t.toolProfile,
        JSON.stringify(t.disabledTools),
        t.toolMode,
        t.approvalWindowMinutes,
        t.offerAlternatives === false ? 0 : 1,
        t.customerRetentionDays ?? null,
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
}
