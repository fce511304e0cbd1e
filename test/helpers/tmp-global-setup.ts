// Vitest globalSetup: the whole run's temporary files in one directory, removed when the run ends. TMPDIR points
// into it before the test workers start, so they, the CLIs they start and the agent CLIs those start (opencode
// unpacks its native libraries into the temp dir, claude keeps its own dir there) all write inside it; what a test
// forgets is removed with it. Listed first in vitest.config.ts, so its teardown runs last (after the shared
// PostgreSQL cluster's).
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

const PREFIX = 'ringmaster-tests-';

/** Points TMPDIR at a fresh directory; returns the teardown that removes it. */
export default function setup(): () => void {
  // Vitest runs it once per project (parallel, serial) in the same process: the first one's directory serves both.
  if (basename(tmpdir()).startsWith(PREFIX)) return () => undefined;
  const previous = process.env.TMPDIR;
  const root = mkdtempSync(join(tmpdir(), PREFIX));
  // Traversable by others, as /tmp itself is (not listable): tests that run a command as another user (nobody,
  // when the suite runs as root) reach their directories inside it.
  chmodSync(root, 0o711);
  process.env.TMPDIR = root;
  return () => {
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
  };
}
