// Session continuity of a workflow (docs/workflows.md): steps carry the agent's session from one to the next unless a
// step clears it or changes agent; a loop resumes it between iterations unless fresh_context is set.
import type { ResolvedStep } from './resolve.js';

/** Whether the iteration `iteration` (1-based, of the step's loop) of step `index` (0-based) starts a new session. */
export function startsFreshSession(steps: readonly ResolvedStep[], index: number, iteration: number, canResume: (agent: string) => boolean): boolean {
  const current = steps[index];
  if (!current || !canResume(current.agent.name)) return true;
  if (iteration > 1) return current.loop?.freshContext ?? true;
  const previous = steps[index - 1];
  return previous === undefined || current.step.clearContext || previous.agent.name !== current.agent.name;
}

/** How a step uses sessions, in words (dry run, and the warning at start for agents that cannot resume). */
export function describeSessions(steps: readonly ResolvedStep[], index: number, canResume: (agent: string) => boolean): string {
  const current = steps[index];
  if (!current) return '';
  if (!canResume(current.agent.name)) return `agent '${current.agent.name}' cannot resume sessions: every iteration is a new session`;
  const first = startsFreshSession(steps, index, 1, canResume) ? 'new session' : `continues the session of step ${index}`;
  if (current.loop === null) return first;
  return `${first}; ${current.loop.freshContext ? 'a new session every iteration (fresh_context)' : 'iterations 2.. resume the session'}`;
}

/** Steps of one agent named one by one in a warning; past it the warning names the first and the last (a long workflow gets one line). */
const NAMED_STEPS = 3;

/** Warnings to print at start: steps whose agent cannot keep the session the workflow asks for (a loop workflow's one step is not named). */
export function sessionWarnings(steps: readonly ResolvedStep[], canResume: (agent: string) => boolean, kind: 'steps' | 'loop' = 'steps'): string[] {
  const affected = steps.filter((s, i) => !canResume(s.agent.name) && ((s.loop !== null && !s.loop.freshContext) || (i > 0 && !s.step.clearContext)));
  const why = (agent: string) => `agent '${agent}' cannot resume sessions: each iteration will be a new session`;
  if (kind === 'loop') return affected.map((s) => why(s.agent.name));
  const byAgent = new Map<string, ResolvedStep[]>();
  for (const s of affected) byAgent.set(s.agent.name, [...(byAgent.get(s.agent.name) ?? []), s]);
  return [...byAgent].flatMap(([agent, list]) => {
    const first = list[0];
    const last = list.at(-1);
    if (list.length <= NAMED_STEPS || !first || !last) return list.map((s) => `step ${s.step.index} (${s.step.name}): ${why(agent)}`);
    return [`${list.length} steps, step ${first.step.index} (${first.step.name}) to step ${last.step.index} (${last.step.name}): ${why(agent)}`];
  });
}
