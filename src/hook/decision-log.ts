// Records every hook decision as one JSON line in `.ringmaster/hook-decisions.log` of the project.
import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { VerifyRecord } from '../store/rows.js';
import { RINGMASTER_DIR } from './paths.js';

/** The log's file name inside RINGMASTER_DIR. */
export const DECISION_LOG_FILE = 'hook-decisions.log';

/** One recorded decision. */
export interface HookDecisionRecord {
  time: string;
  session_id: string | null;
  stop_hook_active: boolean | null;
  decision: 'allow' | 'block';
  /** Why (an allow reason, or `continue`, `verify_failed`, `verify_timeout` for a block). */
  reason: string;
  /** Tracker iteration after the decision, when a tracker was read. */
  iteration: number | null;
  max_iterations: number | null;
  /** Set when the hook failed open. */
  warning: string | null;
  /** The verify check's evidence, when a claimed completion was checked (`loop start --verify`). */
  verify?: VerifyRecord;
}

/** Path of the decision log of a project. */
export function decisionLogPath(projectDir: string): string {
  return join(projectDir, RINGMASTER_DIR, DECISION_LOG_FILE);
}

/** Appends one record (creates `.ringmaster/` when needed). */
export async function appendDecision(projectDir: string, record: HookDecisionRecord): Promise<void> {
  const path = decisionLogPath(projectDir);
  await mkdir(join(projectDir, RINGMASTER_DIR), { recursive: true, mode: 0o700 });
  await appendFile(path, `${JSON.stringify(record)}\n`, { encoding: 'utf8', mode: 0o600 });
}
