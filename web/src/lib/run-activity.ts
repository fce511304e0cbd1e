// What each run's agent is doing right now, for the board's cards: the tool it is using and its last line
// of output. A few strings per run (bounded), updated from live activity, read per card.
import Anser from 'anser';
import type { AgentActivity } from '../api/api-types.js';
import { applyCarriageReturns } from './output-log.js';

/** The live state of one run's agent. */
export interface RunNow {
  iteration: number;
  /** Tool in use (name and a short argument summary), null between tool calls. */
  tool: string | null;
  lastLine: string;
}

/** Longest last line kept per run. */
export const MAX_LAST_LINE = 300;

function lastNonEmptyLine(text: string): string | null {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const plain = Anser.ansiToText(applyCarriageReturns(lines[i] ?? '').replace(/\r$/, '')).trim();
    if (plain !== '') return plain.length > MAX_LAST_LINE ? `${plain.slice(0, MAX_LAST_LINE - 1)}…` : plain;
  }
  return null;
}

/** The state after one piece of activity (the same object when nothing visible changed). */
export function nextRunNow(now: RunNow | undefined, activity: AgentActivity, toolLabel: (name: string, input: string) => string): RunNow {
  const base: RunNow = now !== undefined && now.iteration === activity.iteration ? now : { iteration: activity.iteration, tool: null, lastLine: now?.lastLine ?? '' };
  switch (activity.kind) {
    case 'tool_call':
      return { ...base, tool: toolLabel(activity.name, activity.input) };
    case 'tool_result':
      return base.tool === null ? base : { ...base, tool: null };
    case 'text':
    case 'output': {
      const line = lastNonEmptyLine(activity.text);
      return line === null || line === base.lastLine ? base : { ...base, lastLine: line };
    }
  }
}

/** Per-run "now" state with per-run subscriptions (a card re-renders only when its own run changes). */
export class RunActivity {
  readonly #runs = new Map<string, RunNow>();
  readonly #listeners = new Map<string, Set<() => void>>();
  readonly #toolLabel: (name: string, input: string) => string;

  constructor(toolLabel: (name: string, input: string) => string) {
    this.#toolLabel = toolLabel;
  }

  /** The current state of a run (undefined before any activity). */
  get(runId: string): RunNow | undefined {
    return this.#runs.get(runId);
  }

  /** Applies a batch of activity and notifies the runs that changed. */
  apply(batch: ReadonlyArray<{ run_id: string; activity: AgentActivity }>): void {
    const changed = new Set<string>();
    for (const { run_id, activity } of batch) {
      const before = this.#runs.get(run_id);
      const after = nextRunNow(before, activity, this.#toolLabel);
      if (after !== before) {
        this.#runs.set(run_id, after);
        changed.add(run_id);
      }
    }
    for (const id of changed) for (const listener of this.#listeners.get(id) ?? []) listener();
  }

  /** Forgets a run that ended (its card shows its final state from the store). */
  forget(runId: string): void {
    if (this.#runs.delete(runId)) for (const listener of this.#listeners.get(runId) ?? []) listener();
  }

  /** Number of runs tracked. */
  get size(): number {
    return this.#runs.size;
  }

  /** Subscribes to one run's changes; returns the unsubscribe function. */
  subscribe(runId: string, listener: () => void): () => void {
    let set = this.#listeners.get(runId);
    if (!set) {
      set = new Set();
      this.#listeners.set(runId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#listeners.delete(runId);
    };
  }
}
