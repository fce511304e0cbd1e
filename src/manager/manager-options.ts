// The loop manager's options and the answer of a control request made through it (manager.ts), apart so that the
// manager's parts (queue, creation, control, adoption) share them without importing the manager.
import type { RunStatus } from '../core/types.js';
import type { AgentActivity, RunEvent } from '../runner/events.js';
import type { ControlAction, Owner, Store } from '../store/index.js';
import type { Transition } from './run-controller.js';

/** What the manager needs. */
export interface ManagerOptions {
  store: Store;
  env: Readonly<Record<string, string | undefined>>;
  maxConcurrent: number;
  /** After a restart: resume the runs this manager was driving (true), or mark them stopped/interrupted. */
  resumeOnStart: boolean;
  owner?: Owner;
  now?: () => number;
  /** Every event of the runs driven here, as emitted (WebSocket fan-out). */
  onEvent?: (event: RunEvent) => void;
  /** Live agent activity of the runs driven here. */
  onActivity?: (runId: string, activity: AgentActivity) => void;
  /** Problems worth a line in the server's log (store write failures, recovery). */
  log?: (message: string) => void;
  /** Helper processes that run the agents (0: in this process). Default 2 when the compiled helper is available. */
  iterationThreads?: number;
  /**
   * Workers drive the runs (`serve --workers external`): a run ready to start is handed to this (queued as a job)
   * instead of being started here; max_concurrent is the workers' global limit then, not this process's.
   */
  dispatch?: (runId: string) => Promise<void>;
  /**
   * The origin of the runs this manager creates, and the only ones it resumes after a restart (default
   * `server`). Servers sharing one database each need their own (`serve` uses `server@<host>` with PostgreSQL),
   * so that one server's restart never adopts another's runs.
   */
  origin?: string;
}

/** The answer to a control request made through the manager. */
export interface ControlOutcome {
  id: string;
  action: ControlAction;
  /** accepted | already | not_running | requested (sent to another process that has not answered yet). */
  answer: string;
  status: RunStatus | 'orphaned';
  transition: Transition;
}
