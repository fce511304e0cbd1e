// The new-run form: its fields (the options of `ringmaster run`), their validation with the CLI's own
// setting parsers (their problem, said with the form's field name instead of the CLI's flag), the defaults an
// empty field gives, and the request body it sends.
import { settingOfFlag, settingProblem } from '../../../src/config/settings.js';
import type { RunRequest } from '../api/api-types.js';

/** Where the prompt comes from (like --prompt / --prompt-file / --procedure), or a workflow that brings its own. */
export type PromptKind = 'text' | 'file' | 'procedure' | 'workflow';

/** The form's fields, as typed. Empty string = not given (the server's configuration decides). */
export interface NewRunForm {
  workspace: string;
  promptKind: PromptKind;
  prompt: string;
  promptFile: string;
  procedure: string;
  workflow: string;
  message: string;
  context: string;
  agent: string;
  agentCommand: string;
  model: string;
  maxIterations: string;
  unlimited: boolean;
  maxRuntime: string;
  maxCost: string;
  failureThreshold: string;
  cooldown: string;
  idleTimeout: string;
  iterationTimeout: string;
  checkpointInterval: string;
  /** --no-progress-after: stop after N iterations in a row that changed no file. */
  noProgressAfter: string;
  /** The verify gate (--verify, --verify-timeout, --verify-each). */
  verify: string;
  verifyTimeout: string;
  verifyEach: boolean;
  worktree: boolean;
  /** Run every agent in an OS sandbox (`sandbox: true`). */
  sandbox: boolean;
}

/** A blank form. */
export const EMPTY_FORM: NewRunForm = {
  workspace: '',
  promptKind: 'text',
  prompt: '',
  promptFile: '',
  procedure: '',
  workflow: '',
  message: '',
  context: '',
  agent: '',
  agentCommand: '',
  model: '',
  maxIterations: '',
  unlimited: false,
  maxRuntime: '',
  maxCost: '',
  failureThreshold: '',
  cooldown: '',
  idleTimeout: '',
  iterationTimeout: '',
  checkpointInterval: '',
  noProgressAfter: '',
  verify: '',
  verifyTimeout: '',
  verifyEach: false,
  worktree: false,
  sandbox: false,
};

/** What each field is called on the form (messages name fields this way, not by the CLI's flags). */
export const FIELD_LABELS: Record<keyof NewRunForm, string> = {
  workspace: 'Workspace',
  promptKind: 'Prompt',
  prompt: 'Prompt',
  promptFile: 'Prompt file',
  procedure: 'Procedure',
  workflow: 'Workflow',
  message: 'Message',
  context: 'Extra context',
  agent: 'Agent',
  agentCommand: 'Agent command',
  model: 'Model',
  maxIterations: 'Max iterations',
  unlimited: 'Unlimited',
  maxRuntime: 'Max runtime',
  maxCost: 'Max cost',
  failureThreshold: 'Failure threshold',
  cooldown: 'Cooldown',
  idleTimeout: 'Idle timeout',
  iterationTimeout: 'Iteration timeout',
  checkpointInterval: 'Checkpoint interval',
  noProgressAfter: 'Stop on no progress after',
  verify: 'Verify command',
  verifyTimeout: 'Verify timeout',
  verifyEach: 'Check after every iteration',
  worktree: 'Worktree',
  sandbox: 'Sandbox',
};

/**
 * What an empty field gives on a run created through the server (manager.defaults and the loop's built-in defaults,
 * as src/config/settings.ts declares them; test/web/new-run.test.ts holds them to it), unless the workspace's or the
 * server's configuration sets another value.
 */
export const EMPTY_GIVES = {
  maxIterations: '100',
  maxRuntime: '4h',
  maxCost: '300',
  failureThreshold: '5',
  cooldown: '5s',
  idleTimeout: '30m',
  iterationTimeout: 'none',
  checkpointInterval: '5',
  noProgressAfter: '0',
  verifyTimeout: '10m',
} as const satisfies Partial<Record<keyof NewRunForm, string>>;

/** Field name -> the message to show under it. */
export type FormErrors = Partial<Record<keyof NewRunForm, string>>;

/** The result of validating the form: a request body, or the messages to show. */
export type Validated = { ok: true; body: RunRequest } | { ok: false; errors: FormErrors };

/** A problem with a field, in the form's words: its name, then what is wrong. */
export function fieldMessage(field: keyof NewRunForm, problem: string): string {
  return `${FIELD_LABELS[field]}: ${problem}`;
}

/** Checks one field with the setting of its `ringmaster run` flag; returns the problem in the form's words. */
function check(field: keyof NewRunForm, flag: string, raw: string): string | null {
  const setting = settingOfFlag(flag);
  if (setting === undefined) throw new Error(`no setting for ${flag}`);
  const problem = settingProblem(setting, raw);
  return problem === null ? null : fieldMessage(field, problem);
}

/** Validates the form like `ringmaster run` validates its flags, and builds the POST /api/runs body. */
export function validateNewRun(form: NewRunForm): Validated {
  const errors: FormErrors = {};
  const body: RunRequest = { workspace: form.workspace.trim() };
  if (body.workspace === '') errors.workspace = fieldMessage('workspace', 'a directory is required');

  if (form.promptKind === 'text') {
    if (form.prompt.trim() === '') errors.prompt = fieldMessage('prompt', 'write what the agent should do');
    else body.prompt = form.prompt;
  } else if (form.promptKind === 'file') {
    if (form.promptFile.trim() !== '') {
      const problem = check('promptFile', '--prompt-file', form.promptFile);
      if (problem) errors.promptFile = problem;
      else body.prompt_file = form.promptFile.trim();
    }
  } else if (form.promptKind === 'workflow') {
    if (form.workflow.trim() === '') errors.workflow = fieldMessage('workflow', "name a workflow, or a workflow file relative to the workspace");
    else body.workflow = form.workflow.trim();
    if (form.message.trim() !== '') body.message = form.message;
  } else if (form.procedure.trim() === '') {
    errors.procedure = fieldMessage('procedure', 'choose a procedure');
  } else {
    body.procedure = form.procedure.trim();
  }
  if (form.context.trim() !== '') body.context = form.context;

  // Flags whose value is sent as typed (the server parses it the same way) or as a whole number.
  const flags: Array<[keyof NewRunForm, string, keyof RunRequest, 'text' | 'number']> = [
    ['agent', '--agent', 'agent', 'text'],
    ['agentCommand', '--agent-command', 'agent_command', 'text'],
    ['model', '--model', 'model', 'text'],
    ['maxRuntime', '--max-runtime', 'max_runtime', 'text'],
    ['maxCost', '--max-cost', 'max_cost', 'text'],
    ['cooldown', '--cooldown', 'cooldown', 'text'],
    ['idleTimeout', '--idle-timeout', 'idle_timeout', 'text'],
    ['iterationTimeout', '--iteration-timeout', 'iteration_timeout', 'text'],
    ['failureThreshold', '--failure-threshold', 'failure_threshold', 'number'],
    ['checkpointInterval', '--checkpoint-interval', 'checkpoint_interval', 'number'],
    ['noProgressAfter', '--no-progress-after', 'no_progress_after', 'number'],
    ['verify', '--verify', 'verify', 'text'],
    ['verifyTimeout', '--verify-timeout', 'verify_timeout', 'text'],
  ];
  const values: Record<string, string | number> = {};
  for (const [field, flag, key, type] of flags) {
    const raw = (form[field] as string).trim();
    if (raw === '') continue;
    const problem = check(field, flag, raw);
    if (problem) errors[field] = problem;
    else values[key] = type === 'number' ? Number(raw) : raw;
  }
  Object.assign(body, values);

  // The form disables the iteration count while "unlimited" is checked, so only one of them is sent.
  if (form.unlimited) {
    body.unlimited = true;
  } else if (form.maxIterations.trim() !== '') {
    const raw = form.maxIterations.trim();
    const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isInteger(n) || n < 1) errors.maxIterations = fieldMessage('maxIterations', `expected a whole number of at least 1, got "${form.maxIterations}"`);
    else body.max_iterations = n;
  }
  if (form.verifyEach) {
    if (body.verify === undefined) errors.verifyEach = fieldMessage('verifyEach', 'give the verify command too');
    else body.verify_each = true;
  }
  if (form.worktree) body.worktree = true;
  if (form.sandbox) body.sandbox = true;
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, body };
}

/**
 * The form field a server error is about and the problem in the form's words (the server's messages start with the
 * request field and may name the setting: `workspace: ...`, `flag max_runtime: loop.max_runtime: ...`), or null.
 */
export function fieldOfServerError(message: string): { field: keyof NewRunForm; message: string } | null {
  const match = /^(?:flag )?([a-z_]+): (?:[a-z_]+\.[a-z_.]+: )?/.exec(message);
  if (!match?.[1]) return null;
  const field = match[1].replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  if (!(field in EMPTY_FORM)) return null;
  return { field: field as keyof NewRunForm, message: fieldMessage(field as keyof NewRunForm, message.slice(match[0].length)) };
}
