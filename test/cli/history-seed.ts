// Seeds a workspace's store with known runs for the history command tests.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { iterationLogPath, runDir } from '../../src/store/paths.js';
import { openTestStore, testHome } from '../helpers/home.js';
import type { IterationEnd, Store } from '../../src/store/store.js';

/** 2025-01-02 10:15:00 UTC. */
export const T0 = Date.UTC(2025, 0, 2, 10, 15, 0);

/** A pid that certainly does not exist any more (a child that already exited). */
export function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid;
}

/** An iteration end with defaults. */
export function ended(at: number, overrides: Partial<IterationEnd> = {}): IterationEnd {
  return {
    status: 'failure', exit_code: 0, duration_ms: 2500, tokens_in: 1000, tokens_out: 200, cache_read: 0, cache_write: 0,
    cost_usd: 0.125, completion_signal_found: false, error_kind: 'none', error_message: null, session_id: null, completed_at: at, ...overrides,
  };
}

/**
 * Three runs: `aaa` completed by success signal at iteration 2 (with logs and a checkpoint),
 * `bbb` stopped at max_iterations after one failed iteration with unknown cost, `ccc` running
 * but orphaned (its owner pid is dead).
 */
export async function seedHistory(workspace: string): Promise<void> {
  const store = await openTestStore();
  try {
    await seedCompleted(store, workspace);
    await store.createRun({ id: 'bbb', agent: 'codex', spec: {}, workspace, owner: { pid: 2, host: hostname() }, now: T0 + 3_600_000 });
    await store.startIteration({ run_id: 'bbb', number: 1, agent: 'codex', started_at: T0 + 3_600_000, log_path: null });
    await store.completeIteration('bbb', 1, ended(T0 + 3_601_000, { exit_code: 1, cost_usd: null, tokens_in: null, tokens_out: null, error_kind: 'exit_nonzero', error_message: 'exit code 1', duration_ms: 1000 }));
    await store.finishRun('bbb', { status: 'stopped', stop_reason: 'max_iterations', now: T0 + 3_602_000 });
    await store.createRun({ id: 'ccc', agent: 'claude', spec: {}, workspace, owner: { pid: deadPid(), host: hostname() }, now: T0 + 7_200_000 });
  } finally {
    await store.close();
  }
}

async function seedCompleted(store: Store, workspace: string): Promise<void> {
  await store.createRun({ id: 'aaa', agent: 'claude', spec: { prompt: 'PROMPT.md' }, workspace, owner: { pid: 1, host: hostname() }, now: T0 });
  mkdirSync(runDir(testHome(), 'aaa'), { recursive: true });
  for (const n of [1, 2]) {
    const start = T0 + (n - 1) * 10_000;
    const log = iterationLogPath(testHome(), 'aaa', n);
    writeFileSync(log, n === 1 ? 'working on it\nnot done\n' : 'all done\n<promise>COMPLETE</promise>\n');
    await store.startIteration({ run_id: 'aaa', number: n, agent: 'claude', started_at: start, log_path: log });
    await store.completeIteration('aaa', n, ended(start + 2500, n === 2 ? { status: 'complete', completion_signal_found: true, session_id: 's-2' } : {}));
  }
  await store.recordCheckpoint({ run_id: 'aaa', iteration: 2, commit_sha: '0123456789abcdef0123456789abcdef01234567', state: 'committed', created_at: T0 + 13_000 });
  await store.finishRun('aaa', { status: 'completed', stop_reason: 'success_signal', now: T0 + 15_000 });
}
