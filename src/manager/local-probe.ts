// The liveness probe of this machine: which pids live, and whether a live pid is still the process that wrote
// a heartbeat (not a later one that reused the pid). Shared by the CLI, the manager and the server.
import { hostname } from 'node:os';
import { couldHaveWritten } from '../os/proc.js';
import { isProcessAlive } from '../runner/lock.js';
import type { LivenessProbe } from '../store/liveness.js';

/** Liveness probe of this machine at `now` (epoch ms). */
export function localProbe(now: number = Date.now()): LivenessProbe {
  return { host: hostname(), now, isAlive: isProcessAlive, couldHaveWritten: (pid, atMs) => couldHaveWritten(pid, atMs) };
}
