// The kinds of loop this version can continue from the store (resume, a server restart): each registers how
// its program is rebuilt from the stored run.
import { workflowProgramFromRun } from '../workflow/program.js';
import { taskProgramForRun } from '../tasks/program-kind.js';
import { registerProgramKind } from './programs.js';

let registered = false;

/** Registers every built-in program kind (idempotent): call before rebuilding stored runs with programForRun. */
export function registerBuiltInProgramKinds(): void {
  if (registered) return;
  registered = true;
  registerProgramKind('workflow', workflowProgramFromRun);
  registerProgramKind('tasks', (run, spec) => taskProgramForRun(run, spec));
}
