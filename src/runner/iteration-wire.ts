// Messages between an iteration pool and its helper processes (v8-serialized over their IPC channel: plain data only).
import type { AgentActivityBody } from './events.js';
import type { IterationInput, IterationOutcomeData } from './iteration.js';

/** An iteration's input without what cannot cross processes (the adapter object, callbacks, the abort signal). */
export type WireInput = Omit<IterationInput, 'adapter' | 'signal' | 'budgetSignal' | 'suspend' | 'onSpawn' | 'onActivity' | 'onSpend' | 'completionScanner'>;

/** Pool -> helper. */
export type PoolRequest =
  | { type: 'run'; id: number; input: WireInput; activity: boolean; spend: boolean }
  | { type: 'abort'; id: number }
  /** The run's budget is spent: the agent stops (`max_cost`). */
  | { type: 'budget'; id: number }
  | { type: 'suspend'; id: number; suspended: boolean };

/** Helper -> pool. */
export type PoolReply =
  /** Its module is loaded: it takes iterations from now on. */
  | { type: 'ready' }
  | { type: 'spawn'; id: number; pid: number }
  | { type: 'activity'; id: number; activity: AgentActivityBody }
  | { type: 'spend'; id: number; usd: number }
  | { type: 'result'; id: number; outcome: Omit<IterationOutcomeData, 'logClosed'> }
  | { type: 'log_closed'; id: number }
  | { type: 'failed'; id: number; message: string };
