// The schema of a workflow file (.ringmaster/workflows/*.yaml): zod for parsing, JSON Schema for editors.
// Field rules live in the zod types; the rules between fields (steps or loop, prompt or command) in
// structureIssues: a refinement of the schema, and also run by the parser when a field is wrong (zod skips
// refinements then), so one validation reports every problem.
import { z } from 'zod';
import { splitCommandLine } from '../agents/command.js';
import { parseDuration } from '../core/duration.js';

/** Workflow and step names, and command names: what can be typed on a command line and used as a file name. */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return JSON.stringify(value);
}

/** A zod error callback for wrong types: "expected WHAT, got <the value>" (other issues keep their message). */
function expected(what: string): (issue: { code?: string; input?: unknown }) => string | undefined {
  return (issue) => {
    if (issue.code !== undefined && issue.code !== 'invalid_type' && issue.code !== 'invalid_union') return undefined;
    return issue.input === undefined ? `required: ${what}` : `expected ${what}, got ${shown(issue.input)}`;
  };
}

const text = (what: string) => z.string({ error: expected(what) });
const nonBlank = (what: string, problem: string) => text(what).refine((s) => s.trim() !== '', { error: problem });
const name = (what: string) => text(what).regex(NAME_PATTERN, { error: (issue) => `${shown(issue.input)} is not a valid name (letters, digits, '.', '_' and '-'; starting with a letter or digit)` }).describe(what);

const duration = z
  .union([z.string(), z.number()], { error: expected("a duration like 90s, 5m or 4h") })
  .refine((v) => (typeof v === 'number' ? Number.isFinite(v) && v >= 0 : parseDuration(v) !== null), { error: (issue) => `expected a duration like 90s, 5m or 4h, got ${shown(issue.input)}` })
  .refine((v) => (typeof v === 'number' ? v !== 0 : parseDuration(v) !== 0), { error: (issue) => `a zero duration is no time at all (leave the key out for no limit), got ${shown(issue.input)}` })
  .describe("a duration: '90s', '5m', '4h', '1h30m', or a number of seconds");

const money = z
  .union([z.number(), z.string()], { error: expected('an amount in USD like 5 or 7.50') })
  .refine((v) => (typeof v === 'number' ? Number.isFinite(v) && v >= 0 : /^\s*\$?\d+(\.\d+)?\s*$/.test(v)), { error: (issue) => `expected an amount in USD like 5 or 7.50, got ${shown(issue.input)}` })
  .describe('an amount in USD, e.g. 5 or "$7.50"');

const argv = z
  .union([z.string(), z.array(z.string())], { error: expected('a command line or a list of arguments') })
  .refine((v) => commandArgv(v).length > 0, { error: 'the command is empty (or has an unterminated quote)' })
  .describe('a command (split into arguments like a shell would, never run through one), or its argument list');

/** The `loop` section: iterate one prompt until the signal, the command, or a limit. */
export const loopSchema = z
  .strictObject(
    {
      until: nonBlank('the completion signal, e.g. COMPLETE', 'is empty: name the completion signal, e.g. COMPLETE').describe(
        'The completion signal: the loop ends when the agent prints <promise>SIGNAL</promise> (any case, whitespace inside the tags) or SIGNAL alone on a line or at the very end of its output.',
      ),
      max_iterations: z
        .number({ error: expected('a whole number of at least 1') })
        .int({ error: (issue) => `expected a whole number of at least 1, got ${shown(issue.input)}` })
        .min(1, { error: (issue) => `must be at least 1, got ${shown(issue.input)}` })
        .describe('The most iterations the loop may take; reaching it without the signal fails the workflow.'),
      fresh_context: z.boolean({ error: expected('true or false') }).optional().describe('true: every iteration starts a new agent session. Default false: iterations 2..N resume the session of the previous one.'),
      until_command: argv.optional().describe('A command run in the workspace after each iteration: exit code 0 also ends the loop (e.g. "npm test").'),
      max_cost: money.optional().describe('Cost budget of this loop in USD.'),
      max_runtime: duration.optional().describe('Wall-clock budget of this loop.'),
      idle_timeout: duration.optional().describe('Kill an iteration that prints nothing for this long.'),
    },
    { error: expected('a mapping with until and max_iterations') },
  )
  .describe('Iterate one prompt until the completion signal or max_iterations.');

const promptField = nonBlank('the prompt text', 'the prompt is empty').describe('The prompt. Variables: $USER_MESSAGE, $WORKFLOW_ID, $ITERATION, $MAX_ITERATIONS, $PREVIOUS_OUTPUT.');
const commandField = name('the name of a prompt file in .ringmaster/commands/ (without .md)').describe('Use .ringmaster/commands/NAME.md as the prompt (same variables as prompt).');
const agentField = text('an agent name').describe('Agent CLI: claude, codex, gemini, opencode, copilot, amp, cursor, command, scripted.');
const modelField = text('a model name').describe('Model passed to the agent CLI.');

/** One entry of `steps`: a prompt run once (or, with `loop`, iterated). */
export const stepSchema = z
  .strictObject(
    {
      name: name('the step name').optional().describe('Shown in progress lines (Step X/Y: name); default: the command name, else step-N.'),
      prompt: promptField.optional(),
      command: commandField.optional(),
      agent: agentField.optional(),
      model: modelField.optional(),
      clear_context: z.boolean({ error: expected('true or false') }).optional().describe('true: start a new agent session for this step. Default false: continue the previous step\'s session.'),
      loop: loopSchema.optional(),
    },
    { error: expected('a mapping with a prompt (or command)') },
  )
  .describe('A step: a prompt (or command) run once, or iterated when it has a loop.');

/** The whole file, with the rules between fields. */
export const workflowSchema = z
  .strictObject(
    {
      name: name('the workflow name').describe('The name `ringmaster workflow run NAME` uses.'),
      description: text('a description').optional().describe('Shown by `ringmaster workflow list` (first line).'),
      agent: agentField.optional(),
      model: modelField.optional(),
      steps: z.array(stepSchema, { error: expected('a list of steps') }).optional().describe('Steps run once, in order. Exclusive with loop.'),
      loop: loopSchema.optional(),
      prompt: promptField.optional().describe('The prompt of a loop workflow. Variables: $USER_MESSAGE, $WORKFLOW_ID, $ITERATION, $MAX_ITERATIONS, $PREVIOUS_OUTPUT.'),
      command: commandField.optional(),
    },
    { error: expected('a mapping (name, description, then steps or loop + prompt)') },
  )
  .superRefine((value, ctx) => {
    for (const issue of structureIssues(value)) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  })
  .describe('A Ringmaster workflow: steps run once in order, or a loop on one prompt.');

/** A workflow file as parsed (snake_case keys, as written). */
export type WorkflowFile = z.infer<typeof workflowSchema>;
/** The `loop` section as parsed. */
export type LoopFile = z.infer<typeof loopSchema>;
/** One step as parsed. */
export type StepFile = z.infer<typeof stepSchema>;

/** A problem between fields, at a path of the file. */
export interface StructureIssue {
  path: Array<string | number>;
  message: string;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Prompt xor command at one place (the top level of a loop workflow, or a step). */
function promptIssues(owner: Record<string, unknown>, at: Array<string | number>, what: string): StructureIssue[] {
  const hasPrompt = owner.prompt !== undefined;
  const hasCommand = owner.command !== undefined;
  if (hasPrompt && hasCommand) return [{ path: [...at, 'command'], message: "give either 'prompt' or 'command', not both" }];
  if (!hasPrompt && !hasCommand) return [{ path: at.length === 0 ? ['loop'] : at, message: `${what} needs a 'prompt' (or 'command': a prompt file in .ringmaster/commands/)` }];
  return [];
}

/**
 * The rules between fields, on the raw (possibly invalid) value: exactly one of `steps` and `loop`; a loop has
 * a prompt; a step has a prompt or a command; step names are unique.
 */
export function structureIssues(value: unknown): StructureIssue[] {
  if (!isMapping(value)) return [];
  const issues: StructureIssue[] = [];
  const hasSteps = value.steps !== undefined;
  const hasLoop = value.loop !== undefined;
  const topPrompt = value.prompt !== undefined || value.command !== undefined;
  if (hasSteps && hasLoop) {
    issues.push({ path: ['loop'], message: "'steps' and 'loop' cannot both be set: a workflow either runs its steps once, in order, or loops on one prompt (a step can have its own loop)" });
  } else if (!hasSteps && !hasLoop) {
    issues.push(
      topPrompt
        ? { path: [value.prompt !== undefined ? 'prompt' : 'command'], message: "a top-level prompt needs a 'loop' (until, max_iterations); for prompts run once, use 'steps'" }
        : { path: [], message: "a workflow needs 'steps' (prompts run once, in order) or a 'loop' with a 'prompt'" },
    );
  } else if (hasLoop) {
    issues.push(...promptIssues(value, [], 'a loop'));
  } else if (topPrompt) {
    issues.push({ path: [value.prompt !== undefined ? 'prompt' : 'command'], message: "a top-level prompt belongs to a loop workflow; with 'steps', give each step its own prompt" });
  }
  if (Array.isArray(value.steps)) {
    if (value.steps.length === 0) issues.push({ path: ['steps'], message: 'the list of steps is empty' });
    const seen = new Map<string, number>();
    value.steps.forEach((step, index) => {
      if (!isMapping(step)) return;
      issues.push(...promptIssues(step, ['steps', index], step.loop === undefined ? 'a step' : 'a loop step'));
      const label = stepName(step, index);
      const first = seen.get(label);
      if (first !== undefined) issues.push({ path: ['steps', index, 'name'], message: `two steps are named '${label}' (steps ${first + 1} and ${index + 1}): give them distinct names` });
      else seen.set(label, index);
    });
  }
  return issues;
}

/** A step's display name: its `name`, else its command, else step-N (1-based). */
export function stepName(step: { name?: unknown; command?: unknown }, index: number): string {
  if (typeof step.name === 'string' && step.name !== '') return step.name;
  if (typeof step.command === 'string' && step.command !== '') return step.command;
  return `step-${index + 1}`;
}

/** An until_command as argv: a string is split like a shell would (quotes), never run through one. */
export function commandArgv(value: string | readonly string[]): string[] {
  if (typeof value !== 'string') return [...value];
  try {
    return splitCommandLine(value);
  } catch {
    return [];
  }
}

/** The keys each kind of mapping accepts, for "unknown key" messages. */
export const KNOWN_KEYS = {
  workflow: Object.keys(workflowSchema.shape),
  step: Object.keys(stepSchema.shape),
  loop: Object.keys(loopSchema.shape),
} as const;

/** JSON Schema (draft 2020-12) of a workflow file, for editors (yaml-language-server, VS Code). */
export function workflowJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(workflowSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  // The rule between fields that JSON Schema can say: either steps, or a loop with a prompt or a command.
  const either = (keys: string[]) => ({ anyOf: keys.map((k) => ({ required: [k] })) });
  const exclusive = {
    oneOf: [
      { required: ['steps'], not: either(['loop', 'prompt', 'command']) },
      { required: ['loop'], not: either(['steps']), oneOf: [{ required: ['prompt'] }, { required: ['command'] }] },
    ],
  };
  return { ...schema, title: 'Ringmaster workflow', ...exclusive };
}
