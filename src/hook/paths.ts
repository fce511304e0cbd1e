// Where hook mode keeps its per-project files. Its own module: the Stop hook finds out whether a project has a
// loop without loading the tracker's YAML and schema code (`hook stop` runs at every turn of every session).
import { join } from 'node:path';

/** Directory of ringmaster's per-project files. */
export const RINGMASTER_DIR = '.ringmaster';
/** The tracker's file name inside RINGMASTER_DIR. */
export const TRACKER_FILE = 'loop-tracker.md';

/** Path of the tracker of a project. */
export function trackerPath(projectDir: string): string {
  return join(projectDir, RINGMASTER_DIR, TRACKER_FILE);
}
