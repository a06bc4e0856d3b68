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

/** What an engine lends the one migration runner: its record of versions and its transactions. */
export interface MigrationTarget {
  /** The versions this database records as applied (creating the record first if needed). */
  appliedVersions(): Promise<number[]>;
  /**
   * Applies one migration and records its version in one transaction of its own; false when
   * another process applied it since `appliedVersions` was read.
   */
  apply(migration: Migration): Promise<boolean>;
}

/** Applies what is pending, in order, each in its own transaction; returns the versions applied here. */
export async function runMigrations(
  target: MigrationTarget,
  migrations: readonly Migration[],
): Promise<number[]> {
  const applied: number[] = [];
  for (const migration of pendingMigrations(await target.appliedVersions(), migrations)) {
    if (await target.apply(migration)) applied.push(migration.version);
  }
  return applied;
}
