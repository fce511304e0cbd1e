// The names of Ringmaster's environment variables: each setting's (RINGMASTER_ + its key), and the other RINGMASTER_*
// variables Ringmaster knows (anything else with that prefix is refused as a typo by config/load.ts).

/** The environment variable of a key: RINGMASTER_ + the key upper-cased with dots as underscores. */
export function envName(key: string): string {
  return `RINGMASTER_${key.replace(/\./g, '_').toUpperCase()}`;
}

/**
 * RINGMASTER_* variables that are not settings but are known: read by other parts of Ringmaster or set
 * by it for its agents. Any other RINGMASTER_* variable is a mistake (a typo would silently drop a limit).
 */
export const OTHER_ENV_VARIABLES: ReadonlySet<string> = new Set([
  'RINGMASTER_HOME',
  'RINGMASTER_TOKEN',
  'RINGMASTER_AGENT_TAG',
  'RINGMASTER_SCRIPTED_DELAY_MS',
  // 0: change tracking stages by git at every snapshot (the live tree off; README "Change tracking").
  'RINGMASTER_LIVE_TREE',
  // Set for task loop hook commands (one may run ringmaster itself).
  'RINGMASTER_HOOK_EVENT',
  'RINGMASTER_RUN_ID',
  'RINGMASTER_TASK_ID',
  'RINGMASTER_TASK_STATUS',
  'RINGMASTER_TASK_TITLE',
]);
