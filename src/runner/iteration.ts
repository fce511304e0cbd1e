// Runs one iteration: supervise the agent process, parse its stream, scan its own text for signals,
// and fold everything into an IterationResult (failures are values, never exceptions).
import type { SuspendSignal } from '../agents/suspend-signal.js';
import type { AgentAdapter, InvocationOptions, StreamParser } from '../agents/types.js';
import { passLongPromptByFile } from './long-prompt.js';
import type { AgentActivityBody } from './events.js';
import type { PriceTable } from '../agents/pricing.js';
import { DEFAULT_MAX_LOG_BYTES } from '../agents/capped-log.js';
import { supervise, type SupervisedExit } from '../agents/supervisor.js';
import { createEchoFilter } from '../core/echo-filter.js';
import { redactor, redactorOf, secretsOfProcess, type Secret } from '../core/redact.js';
import type { SignalScanner } from '../core/signals.js';
import type { CompletionRule } from './completion-rule.js';
import { signalBody } from '../core/completion.js';
import type { ErrorKind, IterationResult } from '../core/types.js';
import { createLineSplitter } from './line-splitter.js';
import { lazyText } from './lazy-text.js';
import { enterSandbox, type SandboxRun } from './sandboxed.js';
import type { SandboxContext } from '../sandbox/wrap.js';
import type { Endpoint } from '../sandbox/policy.js';
import { createIterationFold, iterationError, lastLines, type IterationFold } from './iteration-fold.js';

/** Runs one iteration somewhere (this process, or a helper process of a pool): see iteration-pool.ts. */
export type IterationRunner = (input: IterationInput) => Promise<IterationOutcomeData>;

/** Inputs of one iteration. */
export interface IterationInput {
  adapter: AgentAdapter;
  /** How `adapter` was made (another thread rebuilds it from this). */
  agentSpec: { name: string; command: readonly string[] | null };
  prompt: string;
  cwd: string;
  logPath: string;
  model: string | null;
  extraArgs: string[];
  permissionMode: 'bypass' | 'default';
  resumeSessionId: string | null;
  /** Cumulative cost the resumed session had already reported (subtracted from its new total). */
  resumeCostBaseline: number;
  env: Readonly<Record<string, string | undefined>>;
  successSignals: string[];
  /** Replaces the success signals as the judge of completion (see ProgramStep.completion). */
  completion?: CompletionRule | null;
  /** A program's own scanner instead (see ProgramStep.completionScanner; keeps the iteration in this thread). */
  completionScanner?: (() => SignalScanner) | null;
  failureSignal: string;
  /** Other markers the program reads the answer from (ProgramStep.echoSignals), blanked when echoed from the prompt. */
  echoSignals?: string[];
  idleTimeoutMs: number | null;
  hardTimeoutMs: number | null;
  deadlineMs: number | null;
  killGraceMs: number;
  /** Largest iteration log (head and tail kept around a marker); null = no cap; absent = the default cap. */
  maxLogBytes?: number | null;
  prices: PriceTable;
  signal: AbortSignal;
  /** Aborted when the run's cost budget is spent: the agent is stopped and the iteration ends with `max_cost`. */
  budgetSignal?: AbortSignal;
  /** Told the iteration's cost so far each time it grows (from the agent's usage and cost reports). */
  onSpend?: ((usd: number) => void) | null;
  /** Suspends the agent while set (`pause --now`); absent = never suspended. */
  suspend?: SuspendSignal;
  /** Receives what the agent does, live (--verbose, the WebSocket); null = not wanted. */
  onActivity: ((activity: AgentActivityBody) => void) | null;
  onSpawn?: (pid: number) => void;
  /** Tag of the agent's process tree (RINGMASTER_AGENT_TAG), e.g. iterationTag(runId, n); default random. */
  tag?: string;
  /** The sandbox the agent runs in (RunSpec.sandbox), or none. */
  sandbox?: SandboxContext | null;
}

/** The result plus what only the runner needs (cumulative session cost, malformed line count). */
export interface IterationOutcomeData {
  result: IterationResult;
  malformedLines: number;
  /** The session's cumulative cost as last reported (for the next resume), or null. */
  sessionCumulativeCost: number | null;
  /** Settles when the iteration's log file is closed. */
  logClosed: Promise<void>;
  /** What was odd about the figures the agent reported (normalised before recording), for warnings. */
  warnings: string[];
  /** The agent's own text (assistant text; not tool output, not the echoed prompt), its last 64 KiB. */
  text: string;
  /** Connections the sandbox refused (host and port), in order; absent when none. */
  blocked?: Endpoint[];
}

const TAIL_BYTES = 64 * 1024;

/**
 * Every signal this iteration listens for, whoever defined it: the run's success and failure signals, a workflow
 * loop's `until` (its promise form and its plain form) and the program's markers (a task's result block).
 */
export function listenedSignals(input: Pick<IterationInput, 'successSignals' | 'failureSignal' | 'completion' | 'echoSignals'>): string[] {
  const until = input.completion?.kind === 'until' ? signalBody(input.completion.signal) : '';
  const untilForms = until === '' ? [] : [`<promise>${until}</promise>`, until];
  return [...input.successSignals, input.failureSignal, ...untilForms, ...(input.echoSignals ?? [])];
}

/** Runs the agent once and returns its result. */
export async function runIteration(input: IterationInput): Promise<IterationOutcomeData> {
  const { adapter } = input;
  const fold = createIterationFold(input);
  const invocationOptions: InvocationOptions = {
    prompt: input.prompt,
    cwd: input.cwd,
    model: input.model,
    extraArgs: input.extraArgs,
    permissionMode: input.permissionMode,
    resumeSessionId: input.resumeSessionId,
    env: input.env,
  };
  let invocation;
  try {
    // A prompt passed as an argument (cursor-agent has no stdin mode) may be larger than the OS takes: then the
    // agent gets it in a file, and a short argument saying where.
    invocation = passLongPromptByFile(adapter.buildInvocation(invocationOptions), input.prompt, input.logPath);
  } catch (error) {
    return notRun(input, `${adapter.name}: ${(error as Error).message}`);
  }
  let boxed: SandboxRun;
  try {
    boxed = await enterSandbox(invocation, adapter.name, input.cwd, input.logPath, input.sandbox, input.tag ?? `${process.pid}-${Date.now()}`);
  } catch (error) {
    return notRun(input, `sandbox: ${(error as Error).message}`);
  }
  // Messages never carry the secrets of the agent's environment and command line. What the agent prints comes
  // from the supervisor already redacted (as it is in the log), so parsed events and live activity are too.
  const secrets = secretsOfProcess([invocation.command, ...invocation.args], invocation.env);
  const redact = redactorOf(secrets);
  const output = outputReader(input, fold, adapter.createParser(invocationOptions));
  // The supervisor redacts the log with the same secrets (computed once): a sandbox's wrapped invocation has its own.
  const exit = await superviseAgent(input, boxed, output, boxed.invocation === invocation ? secrets : undefined);
  const blocked = await boxed.finish();
  output.end();
  // The output has ended: rules about its end (a workflow's plain signal as the last thing said) are judged now.
  fold.success.end?.();
  const error = iterationError(exit, fold, adapter, input);
  const ownText = fold.ownText.value();
  return {
    malformedLines: fold.malformed,
    warnings: [...fold.spend.oddFigures].map((problem) => `${adapter.name} reported ${problem}`),
    sessionCumulativeCost: fold.spend.sessionCumulativeCost,
    logClosed: exit.logClosed,
    text: ownText,
    ...(blocked.length > 0 ? { blocked } : {}),
    result: {
      exitCode: exit.exitCode,
      exitSignal: exit.exitSignal,
      successSignal: fold.success.found,
      failureSignal: fold.failure.found,
      durationMs: exit.durationMs,
      usage: fold.spend.finalUsage,
      costUsd: fold.spend.costUsd(),
      sessionId: fold.sessionId,
      model: fold.spend.model,
      errorKind: error.kind,
      // Error messages quote the agent's output: its environment's secrets are never recorded or shown.
      errorMessage: error.message === null ? null : redact(error.message),
      resetAtMs: error.kind === 'usage_limit' || error.kind === 'rate_limit' ? fold.resetAtMs : null,
      // A JSON-lines agent's own text reads better than its raw stream lines.
      ...(error.kind === 'none' ? {} : { lastOutput: lastLines(adapter.format === 'jsonl' && ownText !== '' ? ownText : exit.tail).map(redact) }),
    },
  };
}

/** Where the agent's stdout goes, as text or (see lazyStartBytes) as bytes. */
interface OutputReader {
  onStdout(text: string, offset: number): void;
  onStdoutBytes?: ((bytes: Buffer) => void) | null;
  end(): void;
}

/** Where the agent's stdout goes: a text agent's through the echo filter to the scanners, a JSON-lines agent's parsed. */
function outputReader(input: IterationInput, fold: IterationFold, parser: StreamParser): OutputReader {
  if (input.adapter.format === 'text') {
    // A plain-text agent's output is its own text, except signals it reproduces from the prompt (core/echo-filter.ts).
    const echo = createEchoFilter(input.prompt, listenedSignals(input));
    const starts = lazyStartBytes(input);
    if (starts !== null) {
      // Nobody watches the output live: only what can matter is decoded (runner/lazy-text.ts).
      const lazy = lazyText(starts, (text) => {
        for (const piece of echo.pieces(text)) fold.text(piece);
      }, () => echo.restart());
      return {
        onStdout: () => undefined,
        onStdoutBytes: (bytes) => lazy.push(bytes),
        end: () => {
          lazy.end();
          fold.text(echo.end());
        },
      };
    }
    return {
      onStdout: (text, offset) => {
        for (const piece of echo.pieces(text)) fold.text(piece);
        input.onActivity?.({ kind: 'output', stream: 'stdout', offset, text });
      },
      end: () => fold.text(echo.end()),
    };
  }
  const splitter = createLineSplitter((line) => {
    for (const e of parser.line(line)) fold.event(e);
    // The spend so far, while the agent's turn goes on (the run's budget may stop it).
    if (!fold.turnEnded) fold.spend.report();
  });
  return {
    onStdout: (text) => splitter.push(text),
    end: () => {
      splitter.end();
      for (const e of parser.end()) fold.event(e);
      fold.malformed += splitter.oversized;
    },
  };
}

/**
 * The bytes a signal of a plain-text agent can start with, when its output may be read lazily (runner/lazy-text.ts):
 * nobody watches it live, the run's own signals are scanned as such (no program's scanner, completion rule or
 * markers) and each starts with an ASCII character. Otherwise null.
 */
function lazyStartBytes(input: IterationInput): number[] | null {
  if (input.onActivity !== null || input.completionScanner || input.completion || (input.echoSignals ?? []).length > 0) return null;
  const bytes = new Set<number>();
  for (const signal of listenedSignals(input)) {
    const first = signal.trim().charAt(0);
    if (first === '') continue;
    if (first.charCodeAt(0) >= 128) return null;
    bytes.add(first.toLowerCase().charCodeAt(0)).add(first.toUpperCase().charCodeAt(0));
  }
  return [...bytes];
}

/** The agent's process, supervised to its end (agents/supervisor.ts). */
function superviseAgent(input: IterationInput, boxed: SandboxRun, output: OutputReader, secrets: readonly Secret[] | undefined): Promise<SupervisedExit> {
  return supervise({
    invocation: boxed.invocation,
    ...(secrets ? { secrets } : {}),
    cwd: input.cwd,
    logPath: input.logPath,
    idleTimeoutMs: input.idleTimeoutMs,
    hardTimeoutMs: input.hardTimeoutMs,
    deadlineMs: input.deadlineMs,
    killGraceMs: input.killGraceMs,
    tailBytes: TAIL_BYTES,
    maxLogBytes: input.maxLogBytes === undefined ? DEFAULT_MAX_LOG_BYTES : input.maxLogBytes,
    signal: input.signal,
    ...(input.budgetSignal ? { budgetSignal: input.budgetSignal } : {}),
    ...(input.suspend ? { suspend: input.suspend } : {}),
    onStdout: (text, offset) => output.onStdout(text, offset),
    onStdoutBytes: output.onStdoutBytes ?? null,
    // A plain-text agent's flood of output (`yes`, a build log) is read into one reused buffer: see supervisor.ts.
    stdoutSocket: input.adapter.format === 'text',
    onStderr: input.onActivity ? (text, offset) => input.onActivity?.({ kind: 'output', stream: 'stderr', offset, text }) : undefined,
    onSpawn: boxed.onSpawn(input.onSpawn),
    tag: input.tag,
    sealed: boxed.sealed,
  });
}

/** An iteration whose agent could not be started (its invocation or its sandbox failed). */
function notRun(input: IterationInput, message: string): IterationOutcomeData {
  return { malformedLines: 0, warnings: [], sessionCumulativeCost: null, logClosed: Promise.resolve(), text: '', result: noRunResult(input.model, 'spawn_failed', redactor(input.env)(message)) };
}

/** The result of an iteration whose agent never ran (or whose runner failed): nothing known but the error. */
export function noRunResult(model: string | null, errorKind: ErrorKind, errorMessage: string): IterationResult {
  return {
    exitCode: null,
    exitSignal: null,
    successSignal: false,
    failureSignal: false,
    durationMs: 0,
    usage: null,
    costUsd: null,
    sessionId: null,
    model,
    errorKind,
    errorMessage,
    resetAtMs: null,
  };
}
