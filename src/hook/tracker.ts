// The hook-mode tracker: `.ringmaster/loop-tracker.md`, YAML frontmatter (runtime state) + a markdown body the agent fills.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parse, stringify } from 'yaml';
import { z } from 'zod';
import type { HookLoopState } from '../core/hook-decision.js';
import { trackerPath } from './paths.js';

export { RINGMASTER_DIR, TRACKER_FILE, trackerPath } from './paths.js';
/** Body used when no tracker template is given (the minimal default). */
export const DEFAULT_TRACKER_BODY = '# Loop Progress\n\n_In progress_\n';

/** The tracker's frontmatter, validated on every read. Unknown keys are kept. */
export const trackerFrontmatterSchema = z.looseObject({
  iteration: z.number().int().min(0),
  max_iterations: z.number().int().min(1),
  completion_marker: z.string().min(1),
  active: z.boolean(),
  started_at: z.string(),
  session_id: z.string().min(1).nullable().default(null),
  task: z.string().default(''),
  continue_message: z.string().nullable().default(null),
  ended_at: z.string().nullable().default(null),
  stop_reason: z.string().nullable().default(null),
  /** The loop's run in the project's store (null when the project has no store). */
  run_id: z.string().min(1).nullable().default(null),
  /** The check a claimed completion must pass (`loop start --verify`, split like agent.command); null = none. */
  verify: z.string().min(1).nullable().default(null),
  /** Its time limit in milliseconds (loop.verify_timeout). */
  verify_timeout_ms: z.number().int().min(1).default(600_000),
});

/** Frontmatter of a tracker. */
export type TrackerFrontmatter = z.infer<typeof trackerFrontmatterSchema>;

/** A parsed tracker file. */
export interface Tracker {
  frontmatter: TrackerFrontmatter;
  body: string;
}

/** Raised when a tracker file exists but cannot be understood. */
export class TrackerError extends Error {
  readonly path: string;
  constructor(path: string, problem: string, options?: { cause?: unknown }) {
    super(`${path}: ${problem}`, options);
    this.name = 'TrackerError';
    this.path = path;
  }
}

/** Parses tracker text: `---\n<yaml>\n---\n<body>`. Throws TrackerError. */
export function parseTracker(text: string, path: string): Tracker {
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/.exec(text);
  if (!match) throw new TrackerError(path, 'no YAML frontmatter (the file must start with a --- block)');
  let raw: unknown;
  try {
    raw = parse(match[1] ?? '');
  } catch (error) {
    throw new TrackerError(path, `invalid YAML frontmatter: ${(error as Error).message}`, { cause: error });
  }
  const result = trackerFrontmatterSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new TrackerError(path, `frontmatter ${issue?.path.join('.') || 'root'}: ${issue?.message ?? 'invalid'}`);
  }
  return { frontmatter: result.data, body: match[2] ?? '' };
}

/** Serialises a tracker; the body is kept byte for byte. */
export function formatTracker(tracker: Tracker): string {
  const yaml = stringify(tracker.frontmatter, { lineWidth: 0 });
  return `---\n${yaml}---\n${tracker.body}`;
}

/** Reads the project's tracker; null when there is none. Throws TrackerError when it is unreadable or invalid. */
export async function readTracker(projectDir: string): Promise<Tracker | null> {
  const path = trackerPath(projectDir);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new TrackerError(path, `cannot read: ${(error as Error).message}`, { cause: error });
  }
  return parseTracker(text, path);
}

/** Writes the tracker atomically (temporary file + rename). */
export async function writeTracker(projectDir: string, tracker: Tracker): Promise<void> {
  const path = trackerPath(projectDir);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, formatTracker(tracker), { encoding: 'utf8', mode: 0o600 });
    await rename(temporary, path);
  } finally {
    await rm(temporary, { force: true });
  }
}

/** The decision module's view of a tracker. */
export function loopStateOf(tracker: Tracker): HookLoopState {
  const f = tracker.frontmatter;
  return {
    active: f.active,
    iteration: f.iteration,
    maxIterations: f.max_iterations,
    completionMarker: f.completion_marker,
    sessionId: f.session_id,
    body: tracker.body,
  };
}

/** The message fed back to the model when the hook blocks a stop. */
export function continueMessage(tracker: Tracker, path: string): string {
  const f = tracker.frontmatter;
  if (f.continue_message !== null && f.continue_message.trim() !== '') return f.continue_message;
  const lines = [
    `Ringmaster loop: continuation ${f.iteration} of at most ${f.max_iterations}. The task is not finished yet; keep working on it.`,
  ];
  if (f.task.trim() !== '') lines.push('', 'Task:', f.task.trim());
  lines.push(
    '',
    `Record your progress in ${path}.`,
    `When the task is completely done, end your reply with <promise>${f.completion_marker}</promise> (and only then).`,
  );
  return lines.join('\n');
}
