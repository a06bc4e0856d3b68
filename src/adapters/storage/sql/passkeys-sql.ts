import type { Passkey, PasskeyChallenge } from '../../../domain/identity/passkey.js';
import type { Instant } from '../../../domain/time/instant.js';
import type { PasskeyStore } from '../../../ports/store/index.js';
import type { SqlRunner } from './sql-runner.js';

interface PasskeyRow {
  id: string;
  tenant_id: string;
  person_id: string;
  name: string;
  public_key: string;
  counter: number | string;
  transports: string;
  rp_id: string;
  created_at: number | string;
  last_used_at: number | string | null;
}
interface ChallengeRow {
  challenge: string;
  purpose: PasskeyChallenge['purpose'];
  person_id: string | null;
  rp_id: string;
  expires_at: number | string;
}

const passkeyOf = (r: PasskeyRow): Passkey => ({
  id: r.id,
  tenantId: r.tenant_id,
  personId: r.person_id,
  name: r.name,
  publicKey: r.public_key,
  counter: Number(r.counter),
  transports: JSON.parse(r.transports) as string[],
  rpId: r.rp_id,
  createdAt: Number(r.created_at),
  lastUsedAt: r.last_used_at === null ? null : Number(r.last_used_at),
});

export class PasskeysSql implements PasskeyStore {
  constructor(private readonly db: SqlRunner) {}

  async insert(p: Passkey): Promise<boolean> {
    const added = await this.db.run(
      `INSERT INTO passkeys (id, tenant_id, person_id, name, public_key, counter, transports, rp_id, created_at, last_used_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
      [
        p.id,
        p.tenantId,
        p.personId,
        p.name,
        p.publicKey,
        p.counter,
        JSON.stringify(p.transports),
        p.rpId,
        p.createdAt,
        p.lastUsedAt,
      ],
    );
    return added === 1;
  }

  async get(id: string): Promise<Passkey | null> {
    const [row] = await this.db.all<PasskeyRow>('SELECT * FROM passkeys WHERE id = ?', [id]);
    return row ? passkeyOf(row) : null;
  }

  async listOf(personId: string): Promise<Passkey[]> {
    const rows = await this.db.all<PasskeyRow>(
      'SELECT * FROM passkeys WHERE person_id = ? ORDER BY created_at, id',
      [personId],
    );
    return rows.map(passkeyOf);
  }

  async recordUse(id: string, counter: number, now: Instant): Promise<boolean> {
    const changed = await this.db.run(
      'UPDATE passkeys SET counter = ?, last_used_at = ? WHERE id = ? AND (counter < ? OR (counter = 0 AND ? = 0))',
      [counter, now, id, counter, counter],
    );
    return changed === 1;
  }

  async countOpenChallenges(purpose: PasskeyChallenge['purpose'], now: Instant): Promise<number> {
    const [row] = await this.db.all<{ n: number | string }>(
      'SELECT count(*) AS n FROM passkey_challenges WHERE purpose = ? AND expires_at > ?',
      [purpose, now],
    );
    return Number(row?.n ?? 0);
  }

  async remove(personId: string, id: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM passkeys WHERE person_id = ? AND id = ?', [personId, id])) === 1;
  }

  async insertChallenge(c: PasskeyChallenge, now: Instant): Promise<void> {
    await this.db.run('DELETE FROM passkey_challenges WHERE expires_at <= ?', [now]);
    await this.db.run(
      'INSERT INTO passkey_challenges (challenge, purpose, person_id, rp_id, expires_at) VALUES (?, ?, ?, ?, ?)',
      [c.challenge, c.purpose, c.personId, c.rpId, c.expiresAt],
    );
  }

  async spendChallenge(
    challenge: string,
    purpose: PasskeyChallenge['purpose'],
    now: Instant,
  ): Promise<PasskeyChallenge | null> {
    // Deleted whether or not it is still valid: one answer per challenge, right or wrong.
    const [row] = await this.db.all<ChallengeRow>(
      'DELETE FROM passkey_challenges WHERE challenge = ? AND purpose = ? RETURNING *',
      [challenge, purpose],
    );
    if (!row || Number(row.expires_at) <= now) return null;
    return {
      challenge: row.challenge,
      purpose: row.purpose,
      personId: row.person_id,
      rpId: row.rp_id,
      expiresAt: Number(row.expires_at),
    };
  }
}
