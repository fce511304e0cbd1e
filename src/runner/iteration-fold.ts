// What an iteration learns from its agent while it runs, folded as it arrives: the signals in the agent's own text,
// its spend, session, classified errors and limits (AgentEvents of a JSON-lines agent, or plain text), and once the
// agent has ended, the error kind and message of the whole iteration from its exit.
import type { AgentAdapter, AgentEvent } from '../agents/types.js';
import type { SupervisedExit } from '../agents/supervisor.js';
import { readableError, shortMessage } from '../agents/classify.js';
import { createSignalScanner, type SignalScanner } from '../core/signals.js';
import type { ErrorKind } from '../core/types.js';
import { activityOf } from './activity.js';
import { completionScannerFor } from './completion-rule.js';
import { IterationCost } from './iteration-cost.js';
import type { IterationInput } from './iteration.js';

/** Error kinds by how much they explain a failure: a higher one wins when several are seen. */
const KIND_RANK: Partial<Record<ErrorKind, number>> = {
  auth: 6,
  missing_binary: 6,
  usage_limit: 5,
  rate_limit: 4,
  overloaded: 3,
  agent_error: 1,
};

/** How much of the agent's own text an iteration keeps for the program (structured results, $PREVIOUS_OUTPUT). */
const TEXT_TAIL_CHARS = 64 * 1024;

/** What the iteration has learnt so far. */
export interface IterationFold {
  readonly success: SignalScanner;
  readonly failure: SignalScanner;
  readonly spend: IterationCost;
  sessionId: string | null;
  classified: { kind: ErrorKind; message: string } | null;
  resetAtMs: number | null;
  resultIsError: boolean;
  /** The agent reported its final result: its turn is over. */
  turnEnded: boolean;
  malformed: number;
  /** The agent's own text, its last 64 KiB. */
  readonly ownText: { push(text: string): void; value(): string };
  /** Takes one event of a JSON-lines agent. */
  event(event: AgentEvent): void;
  /** Takes plain text the agent said itself (a text agent's output, echoes blanked). */
  text(text: string): void;
}

/** A fold for the iteration of `input`. */
export function createIterationFold(input: IterationInput): IterationFold {
  const { adapter } = input;
  // Structured activity is numbered in stream order, as activityOf numbers it when the log is read back.
  let activityIndex = 0;
  const fold: IterationFold = {
    success: completionScannerFor(input.completion, input.completionScanner, input.successSignals),
    failure: createSignalScanner([input.failureSignal]),
    spend: new IterationCost(input.model, input.prices, input.resumeSessionId ? input.resumeCostBaseline : 0, input.onSpend ?? null),
    sessionId: input.resumeSessionId,
    classified: null,
    resetAtMs: null,
    resultIsError: false,
    turnEnded: false,
    malformed: 0,
    ownText: createTextTail(TEXT_TAIL_CHARS),
    event(event) {
      if (input.onActivity && adapter.format === 'jsonl') {
        const activity = activityOf(event, activityIndex);
        if (activity) {
          activityIndex += 1;
          input.onActivity(activity);
        }
      }
      foldEvent(fold, event);
    },
    text(text) {
      fold.success.feed(text);
      fold.failure.feed(text);
      fold.ownText.push(text);
    },
  };
  return fold;
}

function foldEvent(fold: IterationFold, event: AgentEvent): void {
  switch (event.type) {
    case 'text':
      fold.success.feed(event.text);
      fold.failure.feed(event.text);
      fold.ownText.push(event.text.endsWith('\n') ? event.text : `${event.text}\n`);
      break;
    case 'usage':
    case 'cost':
      fold.spend.add(event);
      break;
    case 'session':
      fold.sessionId = event.id;
      if (event.model) fold.spend.model = event.model;
      break;
    case 'error':
      classify(fold, event.kind, event.message);
      break;
    case 'limit':
      classify(fold, event.kind, event.message);
      if (event.resetAtMs !== null) fold.resetAtMs = event.resetAtMs;
      break;
    case 'result':
      fold.resultIsError = fold.resultIsError || event.isError;
      fold.turnEnded = true;
      break;
    case 'malformed':
      fold.malformed += 1;
      break;
    case 'tool_call':
    case 'tool_result':
      break;
  }
}

function classify(fold: IterationFold, kind: ErrorKind, message: string): void {
  if (!fold.classified || (KIND_RANK[kind] ?? 0) > (KIND_RANK[fold.classified.kind] ?? 0)) fold.classified = { kind, message };
}

/** The iteration's error kind and message (not yet redacted) from the agent's exit and what it said. */
export function iterationError(exit: SupervisedExit, fold: IterationFold, adapter: AgentAdapter, input: Pick<IterationInput, 'idleTimeoutMs' | 'hardTimeoutMs'>): { kind: ErrorKind; message: string | null } {
  switch (exit.reason) {
    case 'spawn_failed': {
      const missing = exit.spawnError?.startsWith('command not found') === true;
      // The adapter knows how its CLI is installed: let it word the message.
      const byAdapter = missing ? adapter.classifyExit(127, exit.spawnError ?? '') : null;
      return { kind: missing ? 'missing_binary' : 'spawn_failed', message: byAdapter?.kind === 'missing_binary' ? byAdapter.message : exit.spawnError };
    }
    case 'aborted':
      return { kind: 'interrupted', message: 'interrupted' };
    case 'idle_timeout':
      return { kind: 'idle_timeout', message: `no output for ${Math.round((input.idleTimeoutMs ?? 0) / 1000)}s: agent killed` };
    case 'iteration_timeout':
      return { kind: 'iteration_timeout', message: `iteration ran longer than ${Math.round((input.hardTimeoutMs ?? 0) / 1000)}s: agent killed` };
    case 'deadline':
      return { kind: 'max_runtime', message: 'the run reached max_runtime: agent killed' };
    case 'max_cost':
      return { kind: 'max_cost', message: "the run's cost budget was spent while the agent worked: agent stopped" };
    case 'log_failed':
      return { kind: 'write_failed', message: `${exit.logError ?? 'the iteration log could not be written'}: agent stopped (resume the run once Ringmaster can write there again)` };
    case 'exited':
      return exitedError(exit, fold, adapter);
  }
}

function exitedError(exit: SupervisedExit, fold: IterationFold, adapter: AgentAdapter): { kind: ErrorKind; message: string | null } {
  const failedRun = exit.exitCode !== 0 || fold.resultIsError;
  if (failedRun && fold.classified) return { kind: fold.classified.kind, message: fold.classified.message };
  if (failedRun) {
    const byAdapter = adapter.classifyExit(exit.exitCode, exit.tail);
    return {
      kind: byAdapter?.kind ?? (fold.resultIsError && exit.exitCode === 0 ? 'agent_error' : 'exit_nonzero'),
      message: byAdapter?.message ?? lastLine(exit.tail) ?? (exit.exitCode === null ? `killed by ${exit.exitSignal ?? 'a signal'}` : `exit code ${exit.exitCode}`),
    };
  }
  if (fold.failure.found) return { kind: 'failure_signal', message: 'the agent signalled failure' };
  return { kind: 'none', message: null };
}

/** The last non-empty lines of a text (at most 10, each cut at 300 characters; a JSON line read for its message). */
export function lastLines(text: string): string[] {
  const lines = text.split('\n').map((l) => readableError(l.trimEnd())).filter((l) => l.trim() !== '').slice(-10);
  return lines.map((l) => (l.length > 300 ? `${l.slice(0, 299)}…` : l));
}

function lastLine(text: string): string | null {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  const last = lines[lines.length - 1];
  return last === undefined ? null : shortMessage(last, 300);
}

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
