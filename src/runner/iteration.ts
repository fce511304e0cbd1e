// Runs one iteration: supervise the agent process, parse its stream, scan its own text for signals,
// and fold everything into an IterationResult (failures are values, never exceptions).
import type { SuspendSignal } from '../agents/suspend-signal.js';
import type { AgentAdapter, AgentEvent, InvocationOptions } from '../agents/types.js';
import { passLongPromptByFile } from './long-prompt.js';
import { activityOf } from './activity.js';
import type { AgentActivityBody } from './events.js';
import type { PriceTable } from '../agents/pricing.js';
import { IterationCost } from './iteration-cost.js';
import { DEFAULT_MAX_LOG_BYTES } from '../agents/capped-log.js';
import { supervise, type SupervisedExit } from '../agents/supervisor.js';
import { createEchoFilter } from '../core/echo-filter.js';
import { redactor, redactorOf, secretsOfProcess } from '../core/redact.js';
import { createSignalScanner, type SignalScanner } from '../core/signals.js';
import { completionScannerFor, type CompletionRule } from './completion-rule.js';
import { signalBody } from '../core/completion.js';
import type { ErrorKind, IterationResult } from '../core/types.js';
import { createLineSplitter } from './line-splitter.js';
import { enterSandbox, type SandboxRun } from './sandboxed.js';
import type { SandboxContext } from '../sandbox/wrap.js';
import type { Endpoint } from '../sandbox/policy.js';
import { readableError, shortMessage } from '../agents/classify.js';

/** Runs one iteration somewhere (this thread, or a worker thread of a pool): see iteration-pool.ts. */
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

/** Error kinds by how much they explain a failure: a higher one wins when several are seen. */
const KIND_RANK: Partial<Record<ErrorKind, number>> = {
  auth: 6,
  missing_binary: 6,
  usage_limit: 5,
  rate_limit: 4,
  overloaded: 3,
  agent_error: 1,
};

const TAIL_BYTES = 64 * 1024;
/** How much of the agent's own text an iteration keeps for the program (structured results, $PREVIOUS_OUTPUT). */
const TEXT_TAIL_CHARS = 64 * 1024;

/**
 * Keeps (at least) the last `max` characters of what is appended. Chunks are only joined when the value is read:
 * joining per chunk would allocate a new big string for every chunk of a flood of output.
 */
function createTextTail(max: number): { push(text: string): void; value(): string } {
  let parts: string[] = [];
  let head = 0;
  let size = 0;
  return {
    push(text) {
      if (text === '') return;
      parts.push(text);
      size += text.length;
      while (parts.length - head > 1 && size - (parts[head]?.length ?? 0) >= max) {
        size -= parts[head]?.length ?? 0;
        parts[head] = ''; // release the chunk now, not at the next compaction
        head += 1;
      }
      if (head > 1024 && head * 2 > parts.length) {
        parts = parts.slice(head);
        head = 0;
      }
    },
    value() {
      const joined = parts.slice(head).join('');
      return joined.length > max ? joined.slice(-max) : joined;
    },
  };
}

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
// eslint-disable-next-line max-lines-per-function -- too long today; to be split by concern (docs/architecture.md "Layers and size")
export async function runIteration(input: IterationInput): Promise<IterationOutcomeData> {
  const { adapter } = input;
  const success = completionScannerFor(input.completion, input.completionScanner, input.successSignals);
  const failure = createSignalScanner([input.failureSignal]);
  const spend = new IterationCost(input.model, input.prices, input.resumeSessionId ? input.resumeCostBaseline : 0, input.onSpend ?? null);
  let sessionId: string | null = input.resumeSessionId;
  let classified: { kind: ErrorKind; message: string } | null = null;
  let resetAtMs: number | null = null;
  let resultIsError = false;
  /** The agent reported its final result: its turn is over. */
  let turnEnded = false;
  let malformed = 0;
  const ownText = createTextTail(TEXT_TAIL_CHARS);

  const classify = (kind: ErrorKind, message: string): void => {
    if (!classified || (KIND_RANK[kind] ?? 0) > (KIND_RANK[classified.kind] ?? 0)) classified = { kind, message };
  };

  // Structured activity is numbered in stream order, as activityOf numbers it when the log is read back.
  let activityIndex = 0;
  const onEvent = (event: AgentEvent): void => {
    if (input.onActivity && adapter.format === 'jsonl') {
      const activity = activityOf(event, activityIndex);
      if (activity) {
        activityIndex += 1;
        input.onActivity(activity);
      }
    }
    switch (event.type) {
      case 'text':
        success.feed(event.text);
        failure.feed(event.text);
        ownText.push(event.text.endsWith('\n') ? event.text : `${event.text}\n`);
        break;
      case 'tool_call':
        break;
      case 'usage':
      case 'cost':
        spend.add(event);
        break;
      case 'session':
        sessionId = event.id;
        if (event.model) spend.model = event.model;
        break;
      case 'error':
        classify(event.kind, event.message);
        break;
      case 'limit':
        classify(event.kind, event.message);
        if (event.resetAtMs !== null) resetAtMs = event.resetAtMs;
        break;
      case 'result':
        resultIsError = resultIsError || event.isError;
        turnEnded = true;
        break;
      case 'malformed':
        malformed += 1;
        break;
      case 'tool_result':
        break;
    }
  };

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
    return failed(`${adapter.name}: ${(error as Error).message}`, 'spawn_failed');
  }
  let boxed: SandboxRun;
  try {
    boxed = await enterSandbox(invocation, adapter.name, input.cwd, input.logPath, input.sandbox, input.tag ?? `${process.pid}-${Date.now()}`);
  } catch (error) {
    return failed(`sandbox: ${(error as Error).message}`, 'spawn_failed');
  }

  // Messages never carry the secrets of the agent's environment and command line. What the agent prints comes
  // from the supervisor already redacted (as it is in the log), so parsed events and live activity are too.
  const redact = redactorOf(secretsOfProcess([invocation.command, ...invocation.args], invocation.env));

  const parser = adapter.createParser(invocationOptions);
  const splitter = createLineSplitter((line) => {
    for (const e of parser.line(line)) onEvent(e);
    // The spend so far, while the agent's turn goes on (the run's budget may stop it).
    if (!turnEnded) spend.report();
  });
  // A plain-text agent's output is its own text, except signals it reproduces from the prompt (core/echo-filter.ts).
  const echo = createEchoFilter(input.prompt, listenedSignals(input));
  const scan = (text: string): void => {
    success.feed(text);
    failure.feed(text);
    ownText.push(text);
  };
  const onStdout =
    adapter.format === 'text'
      ? (text: string, offset: number) => {
          for (const piece of echo.pieces(text)) scan(piece);
          input.onActivity?.({ kind: 'output', stream: 'stdout', offset, text });
        }
      : (text: string) => splitter.push(text);

  const exit: SupervisedExit = await supervise({
    invocation: boxed.invocation,
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
    onStdout,
    onStderr: input.onActivity ? (text, offset) => input.onActivity?.({ kind: 'output', stream: 'stderr', offset, text }) : undefined,
    onSpawn: boxed.onSpawn(input.onSpawn),
    tag: input.tag,
    sealed: boxed.sealed,
  });
  const blocked = await boxed.finish();
  if (adapter.format === 'text') scan(echo.end());
  if (adapter.format === 'jsonl') {
    splitter.end();
    for (const e of parser.end()) onEvent(e);
    malformed += splitter.oversized;
  }
  // The output has ended: rules about its end (a workflow's plain signal as the last thing said) are judged now.
  success.end?.();

  let errorKind: ErrorKind = 'none';
  let errorMessage: string | null = null;
  const failedRun = exit.exitCode !== 0 || resultIsError;
  switch (exit.reason) {
    case 'spawn_failed': {
      const missing = exit.spawnError?.startsWith('command not found') === true;
      errorKind = missing ? 'missing_binary' : 'spawn_failed';
      // The adapter knows how its CLI is installed: let it word the message.
      const byAdapter = missing ? adapter.classifyExit(127, exit.spawnError ?? '') : null;
      errorMessage = byAdapter?.kind === 'missing_binary' ? byAdapter.message : exit.spawnError;
      break;
    }
    case 'aborted':
      errorKind = 'interrupted';
      errorMessage = 'interrupted';
      break;
    case 'idle_timeout':
      errorKind = 'idle_timeout';
      errorMessage = `no output for ${Math.round((input.idleTimeoutMs ?? 0) / 1000)}s: agent killed`;
      break;
    case 'iteration_timeout':
      errorKind = 'iteration_timeout';
      errorMessage = `iteration ran longer than ${Math.round((input.hardTimeoutMs ?? 0) / 1000)}s: agent killed`;
      break;
    case 'deadline':
      errorKind = 'max_runtime';
      errorMessage = 'the run reached max_runtime: agent killed';
      break;
    case 'max_cost':
      errorKind = 'max_cost';
      errorMessage = "the run's cost budget was spent while the agent worked: agent stopped";
      break;
    case 'log_failed':
      errorKind = 'write_failed';
      errorMessage = `${exit.logError ?? 'the iteration log could not be written'}: agent stopped (resume the run once Ringmaster can write there again)`;
      break;
    case 'exited': {
      const found = classified as { kind: ErrorKind; message: string } | null;
      if (failedRun && found) {
        errorKind = found.kind;
        errorMessage = found.message;
      } else if (failedRun) {
        const byAdapter = adapter.classifyExit(exit.exitCode, exit.tail);
        errorKind = byAdapter?.kind ?? (resultIsError && exit.exitCode === 0 ? 'agent_error' : 'exit_nonzero');
        errorMessage = byAdapter?.message ?? lastLine(exit.tail) ?? `exit code ${exit.exitCode ?? exit.exitSignal}`;
      } else if (failure.found) {
        errorKind = 'failure_signal';
        errorMessage = 'the agent signalled failure';
      }
    }
  }
  if (errorKind !== 'usage_limit' && errorKind !== 'rate_limit') resetAtMs = null;

  return {
    malformedLines: malformed,
    warnings: [...spend.oddFigures].map((problem) => `${adapter.name} reported ${problem}`),
    sessionCumulativeCost: spend.sessionCumulativeCost,
    logClosed: exit.logClosed,
    text: ownText.value(),
    ...(blocked.length > 0 ? { blocked } : {}),
    result: {
      exitCode: exit.exitCode,
      exitSignal: exit.exitSignal,
      successSignal: success.found,
      failureSignal: failure.found,
      durationMs: exit.durationMs,
      usage: spend.finalUsage,
      costUsd: spend.costUsd(),
      sessionId,
      model: spend.model,
      errorKind,
      // Error messages quote the agent's output: its environment's secrets are never recorded or shown.
      errorMessage: errorMessage === null ? null : redact(errorMessage),
      resetAtMs,
      // A JSON-lines agent's own text reads better than its raw stream lines.
      ...(errorKind === 'none' ? {} : { lastOutput: lastLines(adapter.format === 'jsonl' && ownText.value() !== '' ? ownText.value() : exit.tail).map(redact) }),
    },
  };

  function failed(message: string, kind: ErrorKind): IterationOutcomeData {
    return { malformedLines: 0, warnings: [], sessionCumulativeCost: null, logClosed: Promise.resolve(), text: '', result: noRunResult(input.model, kind, redactor(input.env)(message)) };
  }
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

/** The last non-empty lines of a text (at most 10, each cut at 300 characters; a JSON line read for its message). */
function lastLines(text: string): string[] {
  const lines = text.split('\n').map((l) => readableError(l.trimEnd())).filter((l) => l.trim() !== '').slice(-10);
  return lines.map((l) => (l.length > 300 ? `${l.slice(0, 299)}…` : l));
}

function lastLine(text: string): string | null {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  const last = lines[lines.length - 1];
  return last === undefined ? null : shortMessage(last, 300);
}
