// Starting and cancelling a hook-mode loop: creates or deactivates the tracker under the same lock as the hook.
import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../core/errors.js';
import { bareMarker, markerInBody } from '../core/hook-decision.js';
import { withFileLock } from './file-lock.js';
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
  /** Replace an active loop. */
  force: boolean;
  now: Date;
}

async function ensureGitignore(projectDir: string): Promise<void> {
  const path = join(projectDir, RINGMASTER_DIR, '.gitignore');
  try {
    await access(path);
  } catch {
    await writeFile(path, 'loop-tracker.md\nloop-tracker.md.lock\nhook-decisions.log\n', 'utf8');
  }
}

/** Creates the tracker of a new loop. Throws UsageError when a loop is active (without force) or the template is unusable. */
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
    },
    body: body.endsWith('\n') ? body : `${body}\n`,
  };
  await mkdir(join(options.projectDir, RINGMASTER_DIR), { recursive: true });
  return withFileLock(trackerPath(options.projectDir), async () => {
    const existing = await readTracker(options.projectDir).catch(() => null);
    if (existing?.frontmatter.active === true && !options.force) {
      throw new UsageError(
        `a loop is already active in ${trackerPath(options.projectDir)}; run 'ringmaster loop cancel' first or pass --force`,
      );
    }
    await writeTracker(options.projectDir, tracker);
    await ensureGitignore(options.projectDir);
    return tracker;
  });
}

/** Deactivates the active loop (stop reason user_stop); returns the tracker, or null when there was no active loop. */
export async function cancelLoop(projectDir: string, now: Date): Promise<Tracker | null> {
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
    return next;
  });
}
