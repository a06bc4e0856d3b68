/** One step of a schema: applied once, in order, in a transaction of its own. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/**
 * The migrations still to apply, in order, given the versions a database records; refuses a
 * database a newer Holdfast migrated (its schema may mean something this code does not know).
 * Each engine applies them its own way (SQLite: an immediate transaction each; PostgreSQL: under
 * an advisory lock), through this one plan.
 */
export function pendingMigrations(applied: Iterable<number>, migrations: readonly Migration[]): Migration[] {
  const done = new Set(applied);
  const known = Math.max(0, ...migrations.map((m) => m.version));
  const newest = Math.max(0, ...done);
  if (newest > known)
    throw new Error(`Database schema version ${newest} is newer than this Holdfast (${known})`);
  return [...migrations].sort((a, b) => a.version - b.version).filter((m) => !done.has(m.version));
}
