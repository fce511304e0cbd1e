// Task runs as a kind of run: how a stored run of kind 'tasks' gets its program back (resume, a server
// restart), from the setup and state stored in its metadata (registered in manager/program-kinds.ts).
import { UserError } from '../core/errors.js';
import type { RunSpec } from '../spec/run-spec.js';
import type { RunRow } from '../store/index.js';
import { openTaskSourceRef } from './sources/resolve.js';
import { loadSetup } from './run-settings.js';
import { taskRunMetaSchema, taskRunStateFrom } from './run-state.js';
import { createTaskLoop, type TaskLoopProgram } from './task-loop.js';

/** Rebuilds the program of a stored task run, continuing where it stopped. */
export async function taskProgramForRun(run: RunRow, spec: RunSpec, env: Readonly<Record<string, string | undefined>> = process.env): Promise<TaskLoopProgram> {
  const parsed = taskRunMetaSchema.safeParse(run.meta);
  if (!parsed.success) throw new UserError(`run ${run.id}: its task loop state is unreadable (${parsed.error.issues[0]?.message ?? 'invalid'}): it cannot be resumed`);
  const { source: ref, settings } = loadSetup(parsed.data);
  const source = await openTaskSourceRef(ref, spec.workspace, env);
  return createTaskLoop({ spec, source, sourceRef: ref, settings, env, state: taskRunStateFrom(parsed.data, run.id), lanes: parsed.data.lanes });
}
