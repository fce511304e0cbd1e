// The run's agent pid file (data directory): the pid of the agent running now, so that a crash's leftover agent can
// be found and ended on resume (leftover.ts). One descriptor for the whole run, overwritten in place with a
// fixed-width line (agentPidLine): one pwrite per iteration (creating a file per iteration cost more than the rest
// of the iteration's bookkeeping). Written blank at once, so its block exists before a disk fills up.
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { fsProblem } from '../os/fs-errors.js';
import { agentPidPath, ensurePrivateDir } from '../store/paths.js';
import { agentPidBlank, agentPidLine } from './leftover.js';

/** The pid file of one run; a file that cannot be written is a warning, never a reason to stop. */
export class AgentPidFile {
  private readonly path: string;
  private fd: number | null = null;

  constructor(dataDir: string, runId: string, private readonly warn: (message: string) => void) {
    this.path = agentPidPath(dataDir, runId);
    try {
      ensurePrivateDir(dirname(this.path));
      this.fd = openSync(this.path, 'w', 0o600);
      writeSync(this.fd, agentPidBlank(), 0);
    } catch (error) {
      this.problem(error);
    }
  }

  /** The agent now running. */
  write(pid: number): void {
    if (this.fd === null) return;
    try {
      writeSync(this.fd, agentPidLine(pid), 0);
    } catch (error) {
      this.problem(error);
    }
  }

  /**
   * Removes the file: the agent's group is gone once the loop returns, and a stale pid file could make a later
   * resume or stop SIGKILL an unrelated process group that reused the id.
   */
  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    rmSync(this.path, { force: true });
  }

  private problem(error: unknown): void {
    this.warn(`cannot write ${this.path} (${fsProblem(error)}): an agent left behind by a crash could not be found`);
  }
}
