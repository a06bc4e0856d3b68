import Database from 'better-sqlite3';

/**
 * Tries to write, behind the application's back, a second active allocation over `bookingId`'s
 * on a SQLite database: 'inserted', or the engine's refusal.
 */
export function insertOverlapDirectly(dbPath: string, bookingId: string): string {
  const db = new Database(dbPath, { timeout: 5_000 });
  try {
    const row = db
      .prepare('SELECT * FROM allocations WHERE booking_id = ? AND active = 1')
      .get(bookingId) as Record<string, unknown>;
    const copy = { ...row, booking_id: `${bookingId}_forged` };
    const columns = Object.keys(copy);
    try {
      db.prepare(
        `INSERT INTO allocations (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
      ).run(...Object.values(copy));
      return 'inserted';
    } catch (error) {
      return (error as Error).message;
    }
  } finally {
    db.close();
  }
}
