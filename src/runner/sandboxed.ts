// An iteration's agent in its sandbox (RunSpec.sandbox): the invocation wrapped, the cgroup of its caps joined as
// soon as the process exists, and afterwards the proxy stopped with the connections it refused.
import { existsSync } from 'node:fs';
import type { Invocation } from '../agents/types.js';
import { UserError } from '../core/errors.js';
import type { Endpoint, SandboxPolicy } from '../sandbox/policy.js';
import { assertSandboxUsable } from '../sandbox/probe.js';
import { sandboxCgroup } from '../sandbox/cgroup.js';
import { sandboxInvocation, type SandboxContext } from '../sandbox/wrap.js';

/** An invocation ready to supervise, sandboxed or not. */
export interface SandboxRun {
  invocation: Invocation;
  /** True in a sandbox: its pid namespace ends everything the agent started when the agent's sandbox exits. */
  sealed: boolean;
  /** Wraps the iteration's onSpawn (joins the cgroup first). */
  onSpawn(inner?: (pid: number) => void): ((pid: number) => void) | undefined;
  /** Ends what the sandbox started; the connections refused. */
  finish(): Promise<Endpoint[]>;
}

/** The long prompt's file next to the log (long-prompt.ts), handed to the agent read-only when it exists. */
function promptFileOf(logPath: string): string {
  return logPath.replace(/\.log$/, '') + '.prompt.md';
}

/** Puts the invocation in its sandbox when the run has one; throws when the sandbox cannot be set up. */
export async function enterSandbox(invocation: Invocation, agent: string, cwd: string, logPath: string, context: SandboxContext | null | undefined, tag: string): Promise<SandboxRun> {
  if (!context) return { invocation, sealed: false, onSpawn: (inner) => inner, finish: () => Promise.resolve([]) };
  const promptFile = promptFileOf(logPath);
  const readable = [...context.readable, ...(existsSync(promptFile) ? [promptFile] : [])];
  const cgroup = sandboxCgroup(context.policy, tag);
  const boxed = await sandboxInvocation(invocation, agent, cwd, { ...context, readable });
  return {
    invocation: boxed.invocation,
    sealed: true,
    onSpawn: (inner) => (pid) => {
      cgroup?.attach(pid);
      inner?.(pid);
    },
    finish: async () => {
      const blocked = await boxed.finish();
      cgroup?.remove();
      return blocked;
    },
  };
}

/** Why the run's sandbox cannot be enforced on this machine, or null (no sandbox, or it works). */
export function sandboxProblem(policy: SandboxPolicy | null | undefined): string | null {
  if (!policy) return null;
  try {
    assertSandboxUsable(policy);
    return null;
  } catch (error) {
    if (error instanceof UserError) return error.message;
    throw error;
  }
}
