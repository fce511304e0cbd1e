// The hook-mode tracker: `.ringmaster/loop-tracker.md`, YAML frontmatter (runtime state) + a markdown body the agent fills.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { HookLoopState } from '../core/hook-decision.js';
import { trackerPath } from './paths.js';
import { plainFrontmatter, plainYaml, splitTracker, TrackerError, type Tracker } from './tracker-plain.js';

export { RINGMASTER_DIR, TRACKER_FILE, trackerPath } from './paths.js';
export { TrackerError, type Tracker } from './tracker-plain.js';
export type { TrackerFrontmatter } from './tracker-yaml.js';
/** Body used when no tracker template is given (the minimal default). */
export const DEFAULT_TRACKER_BODY = '# Loop Progress\n\n_In progress_\n';

/** Parses tracker text; the YAML library and the schema are loaded only for a frontmatter not in the plain shape. Throws TrackerError. */
export async function parseTrackerText(text: string, path: string): Promise<Tracker> {
  const { yaml, body } = splitTracker(text, path);
  const plain = plainFrontmatter(yaml);
  if (plain !== null) return { frontmatter: plain, body };
  const { parseTracker } = await import('./tracker-yaml.js');
  return parseTracker(text, path);
}

/** Serialises a tracker as the yaml library does (by hand when every value is plain); the body is kept byte for byte. */
export async function formatTrackerText(tracker: Tracker): Promise<string> {
  const plain = plainYaml(tracker.frontmatter);
  if (plain !== null) return `---\n${plain}---\n${tracker.body}`;
  const { formatTracker } = await import('./tracker-yaml.js');
  return formatTracker(tracker);
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
  return parseTrackerText(text, path);
}

/** Tracker writes made by this process (names its temporary files). */
let writes = 0;

/** Writes the tracker atomically (temporary file + rename). */
export async function writeTracker(projectDir: string, tracker: Tracker): Promise<void> {
  const path = trackerPath(projectDir);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  // Unique per write: the process and its own count (writes are serialised by the tracker's lock anyway).
  const temporary = `${path}.${process.pid}.${++writes}.tmp`;
  try {
    await writeFile(temporary, await formatTrackerText(tracker), { encoding: 'utf8', mode: 0o600 });
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
