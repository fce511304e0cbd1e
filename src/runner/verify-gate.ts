// The verify gate of a run (`run --verify CMD`, README "The verify gate"): when the agent claims completion (or after every
// iteration with verify_each) CMD runs in the workspace as task loops run their `test` check: split like
// agent.command and run without a shell, in its own process group killed at the end, bounded by its timeout and the
// run's AbortSignal, the end of its output kept. A claim whose check fails becomes a `verify_failed` failure and the
// next prompt carries the command and its output.
import { splitCommandLine } from '../agents/command.js';
import { isRunLimit, isWait } from '../core/error-policy.js';
import { redactor } from '../core/redact.js';
import type { IterationResult } from '../core/types.js';
import { describeExit, execBounded } from '../os/exec.js';
import type { VerifyRecord } from '../store/rows.js';
import type { VerifySettings } from '../spec/run-spec.js';

/** Bytes of the end of the check's output kept (in the record and the next prompt). */
const OUTPUT_TAIL_BYTES = 8 * 1024;

/** Where and how the check runs. */
export interface VerifyContext {
  workspace: string;
  env: Readonly<Record<string, string | undefined>>;
  signal: AbortSignal;
}

/** The check's evidence, and whether the run was interrupted while it ran (then it is no verdict). */
export interface VerifyRun {
  record: VerifyRecord;
  interrupted: boolean;
  /** Killed at its time limit (no verdict on the work either; hook mode blocks on it). */
  timedOut: boolean;
}

/** Runs the check once. */
export async function runVerify(settings: VerifySettings, ctx: VerifyContext): Promise<VerifyRun> {
  let argv: string[];
  try {
    argv = splitCommandLine(settings.command);
  } catch (error) {
    const summary = `bad verify command: ${(error as Error).message}`;
    return { record: { command: settings.command, passed: false, exit_code: null, duration_ms: 0, summary, output_tail: '' }, interrupted: false, timedOut: false };
  }
  const result = await execBounded({ argv, cwd: ctx.workspace, env: ctx.env, timeoutMs: settings.timeoutMs, signal: ctx.signal, tailBytes: OUTPUT_TAIL_BYTES });
  const passed = result.reason === 'exited' && result.exitCode === 0;
  return {
    record: {
      command: settings.command,
      passed,
      exit_code: result.reason === 'exited' ? result.exitCode : null,
      duration_ms: Math.max(0, Math.round(result.durationMs)),
      summary: describeExit(result, settings.timeoutMs),
      // The output is stored and goes into the next prompt: the environment's secrets never do.
      output_tail: redactor(ctx.env)(result.tail),
    },
    interrupted: result.reason === 'aborted',
    timedOut: result.reason === 'timeout',
  };
}

/** What the next iteration's prompt says about a failed check: the command, how it ended, the end of its output. */
export function verifyFeedback(record: VerifyRecord, claimed: boolean): string {
  const head = claimed
    ? `You signalled completion, but the verify command \`${record.command}\` ${record.summary}: the work is not done yet. Fix what it reports before you signal completion again.`
    : `The verify command \`${record.command}\` ${record.summary} after the last iteration.`;
  const output = record.output_tail.trim();
  return output === '' ? head : `${head}\nThe end of its output:\n\`\`\`\n${output}\n\`\`\``;
}

/** The iteration's result as the gate judges it: a claim whose check failed is a `verify_failed` failure. */
export function gatedResult(result: IterationResult, run: VerifyRun): IterationResult {
  if (run.interrupted) return { ...result, successSignal: false, errorKind: 'interrupted', errorMessage: 'interrupted during the verify command' };
  if (!result.successSignal || run.record.passed) return result;
  return { ...result, successSignal: false, errorKind: 'verify_failed', errorMessage: `claimed complete, but the verify command '${run.record.command}' ${run.record.summary}` };
}

/** The verify gate's state across iterations: the feedback owed to the next prompt. */
export interface VerifyGate {
  /** Judges a finished iteration: runs the check when it applies; null record = no check ran. */
  settle(result: IterationResult, ctx: VerifyContext): Promise<{ result: IterationResult; record: VerifyRecord | null }>;
  /** What the next prompt says about the last check when it failed (until a check passes); null when nothing. */
  feedback(): string | null;
}

/** A gate with the run's settings. */
export function verifyGate(settings: VerifySettings): VerifyGate {
  let feedback: string | null = null;
  return {
    async settle(result, ctx) {
      // Every claim that would complete the run is checked; with verify_each every iteration too, except one
      // interrupted, stopped by the run's limits or waiting on a usage limit (the agent did not finish a turn).
      const claimed = result.successSignal && result.errorKind !== 'interrupted';
      const ended = result.errorKind !== 'interrupted' && !isRunLimit(result.errorKind) && !isWait(result.errorKind);
      if (!claimed && !(settings.each && ended)) return { result, record: null };
      const run = await runVerify(settings, ctx);
      feedback = run.record.passed || run.interrupted ? null : verifyFeedback(run.record, claimed);
      return { result: gatedResult(result, run), record: run.record };
    },
    feedback() {
      return feedback;
    },
  };
}
