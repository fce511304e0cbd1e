// Which store a command uses: `database.url` (config files, or RINGMASTER_DATABASE_URL) names a shared
// PostgreSQL store; unset, the user's SQLite store in the data directory.
import { loadConfig } from './load.js';

/** The configured PostgreSQL URL for a command run in `cwd`, or null for the SQLite store. */
export function configuredDatabaseUrl(cwd: string, env: Readonly<Record<string, string | undefined>>): string | null {
  return loadConfig(cwd, env).settings.database.url;
}
