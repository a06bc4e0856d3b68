import type { ChangeSet, ChangeSetStatus, PlannedChange } from '../../../domain/booking/change-set.js';
import type { ChangeSetStore } from '../../../ports/store/index.js';
import { num } from '../rows.js';
import type { SqlRunner } from './sql-runner.js';

interface ChangeSetRow {
  tenant_id: string;
  id: string;
  subject: string;
  status: string;
  changes: string;
  version: number | string;
  created_at: number | string;
  updated_at: number | string;
}

function setFromRow(row: ChangeSetRow): ChangeSet {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    subject: row.subject,
    status: row.status as ChangeSetStatus,
    changes: JSON.parse(row.changes) as PlannedChange[],
    version: num(row.version),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  };
}

export class ChangeSetsSql implements ChangeSetStore {
  constructor(private readonly db: SqlRunner) {}

  async insert(set: ChangeSet): Promise<void> {
    await this.db.run(
      `INSERT INTO change_sets (tenant_id, id, subject, status, changes, version, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        set.tenantId,
        set.id,
        set.subject,
        set.status,
        JSON.stringify(set.changes),
        set.version,
        set.createdAt,
        set.updatedAt,
      ],
    );
  }

  async get(tenantId: string, id: string): Promise<ChangeSet | null> {
    const [row] = await this.db.all<ChangeSetRow>(
      'SELECT * FROM change_sets WHERE tenant_id = ? AND id = ?',
      [tenantId, id],
    );
    return row ? setFromRow(row) : null;
  }

  async update(next: ChangeSet, expected: ChangeSetStatus): Promise<boolean> {
    const changed = await this.db.run(
      `UPDATE change_sets SET status = ?, version = ?, updated_at = ?
       WHERE tenant_id = ? AND id = ? AND status = ? AND version = ?`,
      [next.status, next.version, next.updatedAt, next.tenantId, next.id, expected, next.version - 1],
    );
    return changed === 1;
  }
}
