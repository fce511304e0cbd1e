// sandbox.memory / sandbox.pids: a cgroup v2 child of Ringmaster's own cgroup per sandboxed agent, made before the
// agent starts its work (its bubblewrap process is moved in as soon as it exists) and removed when it ends.
import { mkdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ownCgroup } from './probe.js';
import type { SandboxPolicy } from './policy.js';

/** A cgroup holding one sandbox, or null when the policy sets no cap. */
export interface SandboxCgroup {
  /** Moves the sandbox's first process in (everything it starts follows). */
  attach(pid: number): void;
  /** Removes the cgroup (once its processes are gone; a failure is left for the OS). */
  remove(): void;
}

/** Creates the cgroup of one sandbox with the policy's caps; throws when the machine cannot (refused earlier by the run). */
export function sandboxCgroup(policy: SandboxPolicy, name: string): SandboxCgroup | null {
  if (policy.memoryBytes === null && policy.pids === null) return null;
  const own = ownCgroup();
  if (own.dir === null) throw new Error(`sandbox.memory / sandbox.pids are not supported here: ${own.problem ?? ''}`);
  const dir = join(own.dir, `ringmaster-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`);
  mkdirSync(dir, { recursive: true });
  if (policy.memoryBytes !== null) {
    writeFileSync(join(dir, 'memory.max'), String(policy.memoryBytes));
    writeFileSync(join(dir, 'memory.swap.max'), '0');
  }
  if (policy.pids !== null) writeFileSync(join(dir, 'pids.max'), String(policy.pids));
  return {
    attach: (pid) => writeFileSync(join(dir, 'cgroup.procs'), String(pid)),
    remove: () => {
      try {
        rmdirSync(dir);
      } catch {
        // Still busy (a process not yet reaped): the empty cgroup costs nothing.
      }
    },
  };
}
