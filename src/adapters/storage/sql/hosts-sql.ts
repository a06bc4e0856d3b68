import type { Host } from '../../../domain/identity/identity.js';
import type { Instant } from '../../../domain/time/instant.js';
import type { HostStore } from '../../../ports/store/index.js';
import type { HostRow } from './identity-rows.js';
import { hostOf } from './identity-rows.js';
import type { SqlRunner } from './sql-runner.js';

/** Hosts whose signed attestations vouch for a person. */
export class HostsSql implements HostStore {
  constructor(private readonly db: SqlRunner) {}

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
