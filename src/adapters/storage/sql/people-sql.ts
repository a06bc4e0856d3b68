import type { Person } from '../../../domain/identity/identity.js';
import type { Instant } from '../../../domain/time/instant.js';
import type { PeopleStore, SetupLink } from '../../../ports/store/index.js';
import type { PersonRow } from './identity-rows.js';
import { personOf } from './identity-rows.js';
import type { SqlRunner } from './sql-runner.js';

/** People of a tenant and their one-time setup links. */
export class PeopleSql implements PeopleStore {
  constructor(private readonly db: SqlRunner) {}

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
}
