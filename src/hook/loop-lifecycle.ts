// Starting and cancelling a hook-mode loop: creates or deactivates the tracker under the same lock as the hook.
import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../core/errors.js';
import { bareMarker, markerInBody } from '../core/hook-decision.js';
import { withFileLock } from './file-lock.js';
import { createHookRun, finishHookRun, hasStore, hookRunSpec, type StoreEnv } from './store-record.js';
import { DEFAULT_TRACKER_BODY, readTracker, RINGMASTER_DIR, trackerPath, writeTracker, type Tracker } from './tracker.js';

/** Default completion marker: the same word as the process loop's default `<promise>COMPLETE</promise>`. */
export const DEFAULT_COMPLETION_MARKER = 'COMPLETE';
/** Default cap on continuations. */
export const DEFAULT_MAX_ITERATIONS = 10;

/** What `ringmaster loop start` asks for. */
export interface StartLoopOptions {
  projectDir: string;
  task: string;
  maxIterations: number;
  completionMarker: string;
  /** Tracker body (template file contents), or null for the default. */
  template: string | null;
  /** Bind the loop to this Claude session now (else the first session that stops claims it). */
  sessionId: string | null;
  continueMessage: string | null;
  /** The check a claimed completion must pass (`--verify`, loop.verify), or null. */
  verify: string | null;
  /** Its time limit (loop.verify_timeout). */
  verifyTimeoutMs: number;
  /** Replace an active loop. */
  force: boolean;
  now: Date;
  /** Names the data directory whose store records the loop. */
  env: StoreEnv;
  /** Told when the store could not record the loop (the loop starts anyway, recorded in the log file). */
  warn?: (message: string) => void;
}

/** Ends the store run of a loop that stops outside the hook (cancel, replaced); store errors only warn. */
async function endRun(env: StoreEnv, runId: unknown, now: Date, warn: ((message: string) => void) | undefined): Promise<void> {
  if (typeof runId !== 'string' || !hasStore(env)) return;
  try {
    await finishHookRun(env, runId, 'stopped', 'user_stop', now.getTime());
  } catch (error) {
    warn?.(`cannot end run ${runId} in the store: ${(error as Error).message}`);
  }
}

async function ensureGitignore(projectDir: string): Promise<void> {
  const path = join(projectDir, RINGMASTER_DIR, '.gitignore');
  try {
    await access(path);
  } catch {
    await writeFile(path, 'loop-tracker.md\nloop-tracker.md.lock\nhook-decisions.log\n', 'utf8');
  }
}

/** Creates the tracker of a new loop, and its run when the project has a store. Throws UsageError when a loop is active (without force) or the template is unusable. */
export async function startLoop(options: StartLoopOptions): Promise<Tracker> {
  const marker = bareMarker(options.completionMarker);
  if (marker === '') throw new UsageError('--completion-marker must not be empty');
  if (!Number.isInteger(options.maxIterations) || options.maxIterations < 1) {
    throw new UsageError('--max-iterations must be a whole number of at least 1');
  }
  const body = options.template ?? DEFAULT_TRACKER_BODY;
  if (markerInBody(body, marker)) {
    throw new UsageError(
      `the tracker template already contains the completion marker '${marker}', so the loop would end at the first stop; ` +
        'choose another marker or remove it from the template',
    );
  }
  const tracker: Tracker = {
    frontmatter: {
      iteration: 0,
      max_iterations: options.maxIterations,
      completion_marker: marker,
      active: true,
      started_at: options.now.toISOString(),
      session_id: options.sessionId,
      task: options.task,
      continue_message: options.continueMessage,
      ended_at: null,
      stop_reason: null,
      run_id: null,
      verify: options.verify,
      verify_timeout_ms: options.verifyTimeoutMs,
    },
    body: body.endsWith('\n') ? body : `${body}\n`,
  };
  await mkdir(join(options.projectDir, RINGMASTER_DIR), { recursive: true, mode: 0o700 });
  return withFileLock(trackerPath(options.projectDir), async () => {
    const existing = await readTracker(options.projectDir).catch(() => null);
    if (existing?.frontmatter.active === true && !options.force) {
      throw new UsageError(
        `a loop is already active in ${trackerPath(options.projectDir)}; run 'ringmaster loop cancel' first or pass --force`,
      );
    }
    if (existing?.frontmatter.active === true) await endRun(options.env, existing.frontmatter.run_id, options.now, options.warn);
    try {
      const spec = hookRunSpec(tracker.frontmatter, trackerPath(options.projectDir));
      tracker.frontmatter.run_id = await createHookRun(options.env, options.projectDir, spec, options.now.getTime());
    } catch (error) {
      options.warn?.(`cannot record the loop in the store: ${(error as Error).message}`);
    }
    await writeTracker(options.projectDir, tracker);
    await ensureGitignore(options.projectDir);
    return tracker;
  });
}

/** Deactivates the active loop (stop reason user_stop; its store run ends stopped/user_stop); returns the tracker, or null when there was no active loop. */
export async function cancelLoop(env: StoreEnv, projectDir: string, now: Date, warn?: (message: string) => void): Promise<Tracker | null> {
  const path = trackerPath(projectDir);
  try {
    await access(path);
  } catch {
    return null;
  }
  return withFileLock(path, async () => {
    const tracker = await readTracker(projectDir);
    if (tracker === null || !tracker.frontmatter.active) return null;
    const next: Tracker = {
      frontmatter: { ...tracker.frontmatter, active: false, ended_at: now.toISOString(), stop_reason: 'user_stop' },
      body: tracker.body,
    };
    await writeTracker(projectDir, next);
    await endRun(env, next.frontmatter.run_id, now, warn);
    return next;
  });
}
