// Which numbered migrations a database still needs. Migrations are applied by the versions missing from its
// schema_migrations, not by "everything above the highest": branches take numbers in parallel (6 and 7 can
// arrive after 8), so a database already at 8 must still get 6 when a ringmaster that knows 6 opens it.
import type { Migration } from './sqlite/migrations.js';

/** The newest migration version among `migrations` (0 when there are none). */
export function newestVersion(migrations: readonly Migration[]): number {
  return migrations.reduce((max, m) => Math.max(max, m.version), 0);
}

/** The migrations whose version is not among `applied`, lowest version first. */
export function pendingMigrations(migrations: readonly Migration[], applied: ReadonlySet<number>): Migration[] {
  return migrations.filter((m) => !applied.has(m.version)).sort((a, b) => a.version - b.version);
}
