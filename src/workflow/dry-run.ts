// `ringmaster workflow run NAME --dry-run`: every step resolved (agent, model, loop, sessions, the command
// line) with the prompt of its first iteration, variables substituted where they are known before the run.
import { formatElapsed } from '../core/duration.js';
import { promptTemplate } from './prompt.js';
import type { ResolvedStep, ResolvedWorkflow } from './resolve.js';
import { describeSessions } from './session.js';
import { substituteVariables } from './variables.js';

/** What the dry run needs from the agents: the command line of an invocation, and who can resume sessions. */
export interface DryRunAgents {
  commandLine(step: ResolvedStep, prompt: string): string;
  canResume(agent: string): boolean;
}

/** Variables known before the run; $WORKFLOW_ID and $PREVIOUS_OUTPUT are left as written. */
const KNOWN_BEFORE_RUN: ReadonlySet<string> = new Set(['USER_MESSAGE', 'ITERATION', 'MAX_ITERATIONS']);

function loopWords(step: ResolvedStep): string {
  const loop = step.loop;
  if (loop === null) return 'runs once';
  const parts = [`loops until "${loop.until}"`, `max ${loop.maxIterations} iteration${loop.maxIterations === 1 ? '' : 's'}`];
  if (loop.untilCommand) parts.push(`or until \`${loop.untilCommand.join(' ')}\` exits 0`);
  if (loop.maxCostUsd !== null) parts.push(`max cost $${loop.maxCostUsd}`);
  if (loop.maxRuntimeMs !== null) parts.push(`max runtime ${formatElapsed(loop.maxRuntimeMs)}`);
  if (loop.idleTimeoutMs !== null) parts.push(`idle timeout ${formatElapsed(loop.idleTimeoutMs)}`);
  return parts.join(', ');
}

/** The dry-run text. */
export function renderDryRun(resolved: ResolvedWorkflow, agents: DryRunAgents, fileShown: string): string {
  const { workflow, steps } = resolved;
  const out: string[] = [];
  const kind = workflow.kind === 'loop' ? 'loop' : `${steps.length} step${steps.length === 1 ? '' : 's'}`;
  out.push(`[DRY RUN] Workflow: ${workflow.name} (${kind}) from ${fileShown}`);
  out.push(`[DRY RUN] Message: ${resolved.userMessage === '' ? '(none)' : resolved.userMessage}`);
  out.push('[DRY RUN] $WORKFLOW_ID and $PREVIOUS_OUTPUT are filled in when the workflow runs.');
  steps.forEach((step, i) => {
    const prompt = substituteVariables(promptTemplate(step.step.prompt), { userMessage: resolved.userMessage, workflowId: '', iteration: 1, maxIterations: step.maxIterations, previousOutput: '' }, KNOWN_BEFORE_RUN);
    const source = step.step.prompt.kind === 'command' ? `, prompt from ${step.step.prompt.path}` : '';
    out.push('');
    out.push(`[DRY RUN] Step ${step.step.index}/${steps.length}: ${step.step.name}`);
    out.push(`[DRY RUN]   agent: ${step.agent.name}${step.agent.model === null ? '' : ` (model ${step.agent.model})`}; ${loopWords(step)}${source}`);
    out.push(`[DRY RUN]   session: ${describeSessions(steps, i, (agent) => agents.canResume(agent))}`);
    out.push(`[DRY RUN]   Would execute with: ${agents.commandLine(step, prompt)}`);
    out.push('');
    out.push(prompt.replace(/\s+$/, ''));
  });
  return `${out.join('\n')}\n`;
}
