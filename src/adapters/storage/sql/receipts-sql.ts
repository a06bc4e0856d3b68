import type { ReceiptFacts } from '../../../domain/booking/receipt.js';
import type { ReceiptStore, SealedSigningKey, StoredReceipt } from '../../../ports/store/index.js';
import { num } from '../rows.js';
import type { SqlRunner } from './sql-runner.js';

interface ReceiptRow {
  facts: string;
  jws: string | null;
}

interface KeyRow {
  kid: string;
  sealed: string;
  created_at: number | string;
  retired_at: number | string | null;
}

export class ReceiptsSql implements ReceiptStore {
  constructor(private readonly db: SqlRunner) {}

  async insert(facts: ReceiptFacts): Promise<void> {
    await this.db.run(
      `INSERT INTO receipts (tenant_id, booking_id, facts, operation_id, created_at) VALUES (?, ?, ?, ?, ?)`,
      [facts.tenantId, facts.bookingId, JSON.stringify(facts), facts.operationId, facts.confirmedAt],
    );
  }

  async get(tenantId: string, bookingId: string): Promise<StoredReceipt | null> {
    const [row] = await this.db.all<ReceiptRow>(
      'SELECT facts, jws FROM receipts WHERE tenant_id = ? AND booking_id = ?',
      [tenantId, bookingId],
    );
    return row ? { facts: JSON.parse(row.facts) as ReceiptFacts, jws: row.jws } : null;
  }

  async setSigned(tenantId: string, bookingId: string, jws: string): Promise<boolean> {
    const changed = await this.db.run(
      'UPDATE receipts SET jws = ? WHERE tenant_id = ? AND booking_id = ? AND jws IS NULL',
      [jws, tenantId, bookingId],
    );
    return changed === 1;
  }

  async keys(): Promise<SealedSigningKey[]> {
    const rows = await this.db.all<KeyRow>('SELECT * FROM receipt_keys ORDER BY created_at DESC, kid');
    return rows.map((r) => ({
      kid: r.kid,
      sealed: r.sealed,
      createdAt: num(r.created_at),
      retiredAt: r.retired_at === null ? null : num(r.retired_at),
    }));
  }

  async addKey(k: SealedSigningKey): Promise<void> {
    await this.db.run('INSERT INTO receipt_keys (kid, sealed, created_at, retired_at) VALUES (?, ?, ?, ?)', [
      k.kid,
      k.sealed,
      k.createdAt,
      k.retiredAt,
    ]);
  }

  async retireKeysExcept(kid: string, now: number): Promise<void> {
    await this.db.run('UPDATE receipt_keys SET retired_at = ? WHERE kid <> ? AND retired_at IS NULL', [
      now,
      kid,
    ]);
  }
}
