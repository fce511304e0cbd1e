// What a task program is created with: the run's spec, the task source and its settings, callbacks and the
// state to continue from. Its own module so that the program and its parts share it without a cycle.
import type { RunSpec } from '../spec/run-spec.js';
import type { LoopHooks } from './hooks.js';
import type { TaskRunSettings, TaskSourceRef } from './run-settings.js';
import type { TaskRunState } from './run-state.js';
import type { TaskSource } from './sources/source.js';

/** What a task program is made of. */
export interface TaskProgramOptions {
  /** The run's spec: workspace, instructions (prompt, context), signals, failure threshold, session reuse. */
  spec: RunSpec;
  source: TaskSource;
  /** How the source is stored for resume; default: the source's file (a command source must say). */
  sourceRef?: TaskSourceRef;
  settings: TaskRunSettings;
  env: Readonly<Record<string, string | undefined>>;
  /** Library callbacks (the task loop's lifecycle hooks: docs/tasks.md). */
  callbacks?: LoopHooks | null;
  /** State to continue from (resume); default: a fresh run. */
  state?: TaskRunState;
}
