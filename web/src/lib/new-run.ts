// The new-run form: its fields (the options of `ringmaster run`), their validation with the CLI's own
// setting parsers (so the messages are the CLI's, word for word), and the request body it sends.
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

/** Field name -> the message to show under it. */
export type FormErrors = Partial<Record<keyof NewRunForm, string>>;

/** The result of validating the form: a request body, or the messages to show. */
export type Validated = { ok: true; body: RunRequest } | { ok: false; errors: FormErrors };

/** Checks one value with the setting of a `ringmaster run` flag; returns the CLI's message on failure. */
function check(flag: string, raw: string): string | null {
  const setting = settingOfFlag(flag);
  if (setting === undefined) throw new Error(`no setting for ${flag}`);
  const problem = settingProblem(setting, raw);
  return problem === null ? null : `flag ${flag}: ${setting.key}: ${problem}`;
}

/** Validates the form like `ringmaster run` validates its flags, and builds the POST /api/runs body. */
export function validateNewRun(form: NewRunForm): Validated {
  const errors: FormErrors = {};
  const body: RunRequest = { workspace: form.workspace.trim() };
  if (body.workspace === '') errors.workspace = 'a workspace directory is required';

  if (form.promptKind === 'text') {
    if (form.prompt.trim() === '') errors.prompt = 'the prompt is empty';
    else body.prompt = form.prompt;
  } else if (form.promptKind === 'file') {
    if (form.promptFile.trim() !== '') {
      const problem = check('--prompt-file', form.promptFile);
      if (problem) errors.promptFile = problem;
      else body.prompt_file = form.promptFile.trim();
    }
  } else if (form.promptKind === 'workflow') {
    if (form.workflow.trim() === '') errors.workflow = 'workflow: name a workflow, or a workflow file relative to the workspace';
    else body.workflow = form.workflow.trim();
    if (form.message.trim() !== '') body.message = form.message;
  } else if (form.procedure.trim() === '') {
    errors.procedure = '--procedure: choose a procedure';
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
    const problem = check(flag, raw);
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
    if (!Number.isInteger(n) || n < 1) errors.maxIterations = `--max-iterations: expected a whole number of at least 1, got "${form.maxIterations}"`;
    else body.max_iterations = n;
  }
  if (form.verifyEach) {
    if (body.verify === undefined) errors.verifyEach = '--verify-each: give the verify command too';
    else body.verify_each = true;
  }
  if (form.worktree) body.worktree = true;
  if (form.sandbox) body.sandbox = true;
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, body };
}

/** The form field a server error is about (its messages start with the request field: `workspace: ...`, `flag max_runtime: ...`). */
export function fieldOfServerError(message: string): keyof NewRunForm | null {
  const match = /^(?:flag )?([a-z_]+):/.exec(message);
  if (!match?.[1]) return null;
  const field = match[1].replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  return field in EMPTY_FORM ? (field as keyof NewRunForm) : null;
}
