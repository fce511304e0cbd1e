// Completion checks (docs/tasks.md): a test command or a validation script that must exit 0, or a file that must
// exist. Commands run without a shell (a string is split like agent.command), in the workspace, in their own
// process group, bounded by a timeout and the run's AbortSignal; the end of their output is kept for the
// next iteration's prompt.
import { access } from 'node:fs/promises';
import { extname, isAbsolute, resolve } from 'node:path';
import { quoteArgv, splitCommandLine } from '../agents/command.js';
import { describeExit, execBounded } from '../os/exec.js';
import type { Completion, Task } from './task.js';

/** How checks run. */
export interface CheckOptions {
  workspace: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Used when the task's completion has no timeout of its own. */
  defaultTimeoutMs: number;
  signal?: AbortSignal;
  /** Bytes of the end of the output kept (default 8 KiB). */
  outputBytes?: number;
}

/** A check's verdict. */
export interface CheckOutcome {
  type: Exclude<Completion['type'], 'signal'>;
  passed: boolean;
  /** One line: 'npm test -- --grep X exited 1', 'specs/a.md exists'. */
  summary: string;
  /** The end of the check's output ('' for file_exists). */
  output: string;
  /** True when the run was interrupted during the check (not a verdict on the task). */
  interrupted: boolean;
}

/** The interpreter a validation script runs with, from its extension (none: the script runs itself). */
export function interpreterFor(script: string): string[] {
  switch (extname(script).toLowerCase()) {
    case '.js':
    case '.mjs':
    case '.cjs':
    case '.ts':
    case '.mts':
    case '.cts':
      // Node 24 runs TypeScript by stripping its types.
      return [process.execPath];
    case '.sh':
      return ['sh'];
    case '.bash':
      return ['bash'];
    case '.py':
      return ['python3'];
    case '.rb':
      return ['ruby'];
    case '.pl':
      return ['perl'];
    default:
      return [];
  }
}

/** The argv of a test command as written (a string is split without a shell). */
export function checkArgv(command: string | readonly string[]): string[] {
  return typeof command === 'string' ? splitCommandLine(command) : [...command];
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/** Runs the task's completion check; null when its completion is the signal alone. */
export async function runCheck(task: Task, options: CheckOptions): Promise<CheckOutcome | null> {
  const { completion } = task;
  const at = (path: string): string => (isAbsolute(path) ? path : resolve(options.workspace, path));
  switch (completion.type) {
    case 'signal':
      return null;
    case 'file_exists': {
      const passed = await exists(at(completion.path));
      return { type: 'file_exists', passed, summary: `${completion.path} ${passed ? 'exists' : 'does not exist'}`, output: '', interrupted: false };
    }
    case 'test':
    case 'validate': {
      let argv: string[];
      let label: string;
      if (completion.type === 'test') {
        try {
          argv = checkArgv(completion.command);
        } catch (error) {
          return { type: 'test', passed: false, summary: `bad test command: ${(error as Error).message}`, output: '', interrupted: false };
        }
        label = `test command '${quoteArgv(argv)}'`;
      } else {
        if (!(await exists(at(completion.script)))) {
          return { type: 'validate', passed: false, summary: `validation script ${completion.script} not found`, output: '', interrupted: false };
        }
        argv = [...interpreterFor(completion.script), at(completion.script)];
        label = `validation script ${completion.script}`;
      }
      const timeoutMs = completion.timeoutMs ?? options.defaultTimeoutMs;
      const result = await execBounded({
        argv,
        cwd: options.workspace,
        env: { ...options.env, RINGMASTER_TASK_ID: task.id, RINGMASTER_TASK_TITLE: task.title },
        timeoutMs,
        signal: options.signal,
        tailBytes: options.outputBytes ?? 8 * 1024,
      });
      const passed = result.reason === 'exited' && result.exitCode === 0;
      return { type: completion.type, passed, summary: `${label} ${describeExit(result, timeoutMs)}`, output: result.tail, interrupted: result.reason === 'aborted' };
    }
  }
}

/** The feedback a failed check gives the next iteration: its summary and the end of its output. */
export function checkFeedback(outcome: CheckOutcome): string {
  const output = outcome.output.trim();
  return output === '' ? outcome.summary : `${outcome.summary}. The end of its output:\n\`\`\`\n${output}\n\`\`\``;
}
