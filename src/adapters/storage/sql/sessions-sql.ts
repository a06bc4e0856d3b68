import type { Session } from '../../../domain/identity/identity.js';
import type { Instant } from '../../../domain/time/instant.js';
import type { SessionStore } from '../../../ports/store/index.js';
import type { SessionRow } from './identity-rows.js';
import { sessionOf } from './identity-rows.js';
import type { SqlRunner } from './sql-runner.js';

/** People's signed-in browser sessions. */
export class SessionsSql implements SessionStore {
  constructor(private readonly db: SqlRunner) {}

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
}
