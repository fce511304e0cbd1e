// `ringmaster hook stop`, run by Claude Code at every turn of every session of a project with the hook installed:
// a project without a loop (no tracker) is answered at once, without loading the event's schema, the tracker's
// YAML code or the store; a project with one goes through stop-hook-loop.ts. Fails open.
import { stat } from 'node:fs/promises';
import { trackerPath } from './paths.js';
import { plainStopHookInput, projectDirOf, type StopHookContext, type StopHookOutcome } from './stop-hook-context.js';

export { projectDirOf, type StopHookContext, type StopHookOutcome } from './stop-hook-context.js';

const NO_LOOP: StopHookOutcome = { stdout: '', decision: 'allow', reason: 'no_loop', warning: null };

/** True when the project of a plainly valid event has no tracker (anything else: the full path decides). */
async function plainlyNoLoop(stdinText: string, ctx: StopHookContext): Promise<boolean> {
  let raw: unknown;
  try {
    raw = JSON.parse(stdinText);
  } catch {
    return false;
  }
  const input = plainStopHookInput(raw);
  if (input === null) return false;
  try {
    await stat(trackerPath(projectDirOf(input, ctx)));
    return false;
  } catch {
    return true;
  }
}

/** Handles one Stop event given as stdin text. Never throws: any error allows the stop with a warning. */
export async function runStopHook(stdinText: string, ctx: StopHookContext): Promise<StopHookOutcome> {
  if (await plainlyNoLoop(stdinText, ctx)) return { ...NO_LOOP };
  const { runLoopStopHook } = await import('./stop-hook-loop.js');
  return runLoopStopHook(stdinText, ctx);
}
