import type { Approval, ApprovalStatus } from '../../../domain/approval/approval.js';
import type { BoundToken } from '../../../domain/approval/bound-token.js';
import type { Instant } from '../../../domain/time/instant.js';
import type { ApprovalStore } from '../../../ports/store/index.js';
import type { ApprovalRow } from '../rows.js';
import { approvalFromRow, approvalToRow } from '../rows.js';
import type { SqlRunner } from './sql-runner.js';

export class ApprovalsSql implements ApprovalStore {
  constructor(private readonly db: SqlRunner) {}

  async insert(approval: Approval, pageTokenHash: string | null): Promise<void> {
    const r = approvalToRow(approval);
    await this.db.run(
      `INSERT INTO approvals (tenant_id, id, subject, client_id, action, booking_id, intent, intent_hash, status,
         created_at, expires_at, decided_at, decided_by, burned_reason, page_token_hash, standing_rule_id,
         window_ms, hold_fixed, executes, requester_note, connection_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        r.tenant_id,
        r.id,
        r.subject,
        r.client_id,
        r.action,
        r.booking_id,
        r.intent,
        r.intent_hash,
        r.status,
        r.created_at,
        r.expires_at,
        r.decided_at,
        r.decided_by,
        r.burned_reason,
        pageTokenHash,
        r.standing_rule_id,
        r.window_ms,
        r.hold_fixed,
        r.executes,
        r.requester_note,
        r.connection_id,
      ],
    );
  }

  async insertToken(t: BoundToken): Promise<void> {
    await this.db.run(
      `INSERT INTO approval_tokens (tenant_id, token_hash, approval_id, tool, arguments_hash, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      [t.tenantId, t.tokenHash, t.approvalId, t.tool, t.argumentsHash, t.createdAt, t.expiresAt],
    );
  }

  async spendToken(tokenHash: string, now: Instant, by: string): Promise<BoundToken | null> {
    const [spent] = await this.db.all<TokenRow>(
      `UPDATE approval_tokens SET used_at = ?, used_by = ? WHERE token_hash = ? AND used_at IS NULL
       RETURNING tenant_id, token_hash, approval_id, tool, arguments_hash, created_at, expires_at`,
      [now, by, tokenHash],
    );
    if (spent) return tokenOf({ ...spent, used_at: null, used_by: null });
    const [before] = await this.db.all<TokenRow>('SELECT * FROM approval_tokens WHERE token_hash = ?', [
      tokenHash,
    ]);
    return before ? tokenOf(before) : null;
  }

  async extendExpiry(tenantId: string, id: string, until: Instant): Promise<boolean> {
    const changed = await this.db.run(
      'UPDATE approvals SET expires_at = ? WHERE tenant_id = ? AND id = ? AND expires_at < ?',
      [until, tenantId, id, until],
    );
    return changed === 1;
  }

  async get(tenantId: string, id: string): Promise<Approval | null> {
    const [row] = await this.db.all<ApprovalRow>('SELECT * FROM approvals WHERE tenant_id = ? AND id = ?', [
      tenantId,
      id,
    ]);
    return row ? approvalFromRow(row) : null;
  }

  async usesOfRules(
    tenantId: string,
    ruleIds: readonly string[],
    from: Instant,
    to: Instant,
  ): Promise<Approval[]> {
    if (ruleIds.length === 0) return [];
    const marks = ruleIds.map(() => '?').join(', ');
    const rows = await this.db.all<ApprovalRow>(
      `SELECT * FROM approvals WHERE tenant_id = ? AND standing_rule_id IN (${marks})
         AND decided_at >= ? AND decided_at < ?`,
      [tenantId, ...ruleIds, from, to],
    );
    return rows.map(approvalFromRow);
  }

  async getByPageToken(pageTokenHash: string): Promise<Approval | null> {
    const [row] = await this.db.all<ApprovalRow>('SELECT * FROM approvals WHERE page_token_hash = ?', [
      pageTokenHash,
    ]);
    return row ? approvalFromRow(row) : null;
  }

  async update(next: Approval, expected: ApprovalStatus): Promise<boolean> {
    const r = approvalToRow(next);
    const changed = await this.db.run(
      `UPDATE approvals SET status = ?, decided_at = ?, decided_by = ?, burned_reason = ?
       WHERE tenant_id = ? AND id = ? AND status = ?`,
      [r.status, r.decided_at, r.decided_by, r.burned_reason, r.tenant_id, r.id, expected],
    );
    return changed === 1;
  }

  async recordFailure(tenantId: string, id: string, reason: string | null): Promise<void> {
    await this.db.run('UPDATE approvals SET last_failure = ? WHERE tenant_id = ? AND id = ?', [
      reason,
      tenantId,
      id,
    ]);
  }

  async spendPageToken(tenantId: string, approvalId: string): Promise<void> {
    await this.db.run('UPDATE approvals SET page_token_hash = NULL WHERE tenant_id = ? AND id = ?', [
      tenantId,
      approvalId,
    ]);
  }

  async list(tenantId: string | null, status?: ApprovalStatus): Promise<Approval[]> {
    const where = [
      tenantId === null ? null : 'tenant_id = ?',
      status === undefined ? null : 'status = ?',
    ].filter((c): c is string => c !== null);
    const rows = await this.db.all<ApprovalRow>(
      `SELECT * FROM approvals ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC LIMIT 200`,
      [tenantId, status].filter((v) => v !== null && v !== undefined),
    );
    return rows.map(approvalFromRow);
  }

  async ofBooking(tenantId: string, bookingId: string): Promise<Approval[]> {
    const rows = await this.db.all<ApprovalRow>(
      'SELECT * FROM approvals WHERE tenant_id = ? AND booking_id = ? ORDER BY created_at LIMIT 100',
      [tenantId, bookingId],
    );
    return rows.map(approvalFromRow);
  }

  async countOpen(tenantId: string, now: Instant, subject?: string): Promise<number> {
    const [row] = await this.db.all<{ n: number | string }>(
      `SELECT count(*) AS n FROM approvals WHERE tenant_id = ? AND status = 'PENDING' AND expires_at > ?${
        subject === undefined ? '' : ' AND subject = ?'
      }`,
      subject === undefined ? [tenantId, now] : [tenantId, now, subject],
    );
    return Number(row?.n ?? 0);
  }

  async recordAttestation(tenantId: string, approvalId: string, now: Instant): Promise<boolean> {
    const added = await this.db.run(
      'INSERT INTO host_attestations (tenant_id, approval_id, used_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
      [tenantId, approvalId, now],
    );
    return added === 1;
  }

  async attestationSeen(tenantId: string, approvalId: string): Promise<boolean> {
    const rows = await this.db.all(
      'SELECT 1 FROM host_attestations WHERE tenant_id = ? AND approval_id = ?',
      [tenantId, approvalId],
    );
    return rows.length > 0;
  }
}

interface TokenRow {
  tenant_id: string;
  token_hash: string;
  approval_id: string;
  tool: string;
  arguments_hash: string;
  created_at: number | string;
  expires_at: number | string;
  used_at: number | string | null;
  used_by: string | null;
}

const tokenOf = (r: TokenRow): BoundToken => ({
  tenantId: r.tenant_id,
  tokenHash: r.token_hash,
  approvalId: r.approval_id,
  tool: r.tool,
  argumentsHash: r.arguments_hash,
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
  usedAt: r.used_at === null ? null : Number(r.used_at),
  usedBy: r.used_by,
});
