import type { StandingRule, StandingRuleBounds } from '../../../domain/approval/standing-rule.js';
import type { Instant } from '../../../domain/time/instant.js';
import type { StandingRuleStore } from '../../../ports/store/index.js';
import { num } from '../rows.js';
import type { SqlRunner } from './sql-runner.js';

interface StandingRuleRow {
  tenant_id: string;
  id: string;
  person_id: string;
  person_name: string;
  connection_id: string | null;
  bounds: string;
  created_at: number | string;
  expires_at: number | string;
  revoked_at: number | string | null;
  granted_via: string;
}

function ruleFromRow(row: StandingRuleRow): StandingRule {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    personId: row.person_id,
    personName: row.person_name,
    connectionId: row.connection_id,
    ...boundsFromRow(row.bounds),
    createdAt: num(row.created_at),
    expiresAt: num(row.expires_at),
    revokedAt: row.revoked_at === null ? null : num(row.revoked_at),
    grantedVia: row.granted_via,
  };
}

/** The bounds as stored, with the rules it replaced (absent in rows written before changes were kept). */
function boundsFromRow(text: string): StandingRuleBounds & { replaced: readonly string[] } {
  const { replaced, ...bounds } = JSON.parse(text) as StandingRuleBounds & { replaced?: string[] };
  return { ...bounds, replaced: replaced ?? [] };
}

/** The bounds as stored: one JSON document, so a new bound needs no new column. */
function boundsOf(rule: StandingRule): string {
  const bounds: StandingRuleBounds & Pick<StandingRule, 'replaced'> = {
    actions: rule.actions,
    calendarIds: rule.calendarIds,
    maxPerBooking: rule.maxPerBooking,
    maxPerDay: rule.maxPerDay,
    weekdays: rule.weekdays,
    hours: rule.hours,
    maxPerDayCount: rule.maxPerDayCount,
    customers: rule.customers,
    timeZone: rule.timeZone,
    replaced: rule.replaced,
  };
  return JSON.stringify(bounds);
}

export class StandingRulesSql implements StandingRuleStore {
  constructor(private readonly db: SqlRunner) {}

  async insert(rule: StandingRule): Promise<void> {
    await this.db.run(
      `INSERT INTO standing_rules (tenant_id, id, person_id, person_name, connection_id, bounds, created_at,
         expires_at, revoked_at, granted_via)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        rule.tenantId,
        rule.id,
        rule.personId,
        rule.personName,
        rule.connectionId,
        boundsOf(rule),
        rule.createdAt,
        rule.expiresAt,
        rule.revokedAt,
        rule.grantedVia,
      ],
    );
  }

  async get(tenantId: string, id: string): Promise<StandingRule | null> {
    const [row] = await this.db.all<StandingRuleRow>(
      'SELECT * FROM standing_rules WHERE tenant_id = ? AND id = ?',
      [tenantId, id],
    );
    return row ? ruleFromRow(row) : null;
  }

  async liveOf(tenantId: string, personId: string, now: Instant): Promise<StandingRule[]> {
    const rows = await this.db.all<StandingRuleRow>(
      `SELECT * FROM standing_rules
       WHERE tenant_id = ? AND person_id = ? AND revoked_at IS NULL AND expires_at > ?
       ORDER BY created_at, id LIMIT 100`,
      [tenantId, personId, now],
    );
    return rows.map(ruleFromRow);
  }

  async list(tenantId: string, personId?: string): Promise<StandingRule[]> {
    const rows = await this.db.all<StandingRuleRow>(
      `SELECT * FROM standing_rules WHERE tenant_id = ?${personId === undefined ? '' : ' AND person_id = ?'}
       ORDER BY created_at DESC, id DESC LIMIT 200`,
      personId === undefined ? [tenantId] : [tenantId, personId],
    );
    return rows.map(ruleFromRow);
  }

  async revoke(tenantId: string, id: string, now: Instant): Promise<boolean> {
    const changed = await this.db.run(
      'UPDATE standing_rules SET revoked_at = ? WHERE tenant_id = ? AND id = ? AND revoked_at IS NULL',
      [now, tenantId, id],
    );
    return changed === 1;
  }
}
