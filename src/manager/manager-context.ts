// What the parts of the loop manager share (manager.ts): its options and identity, its queue, the runs it drives,
// and the small helpers each part uses (the liveness probe, the event fan-out, the outcome of a control request).
import type { DisplayStatus } from '../store/liveness.js';
import { redactDeep, redactor } from '../core/redact.js';
import type { RunEvent, RunEventBody } from '../runner/events.js';
import type { IterationPool } from '../runner/iteration-pool.js';
import { appendEventBodies } from '../runner/standalone-events.js';
import { isOrphaned, type LivenessProbe } from '../store/liveness.js';
import type { ControlAction, Owner } from '../store/index.js';
import type { ControlPoller } from './control-poller.js';
import { ManagerError } from './errors.js';
import { localProbe } from './local-probe.js';
import type { ControlOutcome, ManagerOptions } from './manager-options.js';
import type { RunController, Transition } from './run-controller.js';
import type { RunQueue } from './run-queue.js';

/** A run this process drives: its controller, and its end (the slot it holds is freed then). */
export interface Active {
  controller: RunController;
  done: Promise<void>;
}

/** The state of one manager, shared by its parts. */
export interface ManagerContext {
  readonly options: ManagerOptions;
  readonly owner: Owner;
  readonly now: () => number;
  readonly origin: string;
  readonly queue: RunQueue;
  readonly active: Map<string, Active>;
  readonly poller: ControlPoller;
  readonly pool: IterationPool | null;
  /** False once shutdown began: no run is created, adopted or started any more. */
  accepting: boolean;
}

/** Refuses new work once the manager is shutting down. */
export function assertAccepting(ctx: ManagerContext): void {
  if (!ctx.accepting) throw new ManagerError('unavailable', 'the server is shutting down');
}

/** The liveness probe of this machine, now. */
export function probe(ctx: ManagerContext): LivenessProbe {
  return localProbe(ctx.now());
}

/** True when this process drives (or queues) the run. */
export function owns(ctx: ManagerContext, runId: string): boolean {
  return ctx.active.has(runId) || ctx.queue.has(runId);
}

/** pausing / stopping while a request has not taken effect yet (runs driven here). */
export function transitionOf(ctx: ManagerContext, runId: string): Transition {
  return ctx.active.get(runId)?.controller.transition ?? null;
}

/** Hands events to the fan-out. */
export function broadcast(ctx: ManagerContext, events: readonly RunEvent[]): void {
  for (const event of events) ctx.options.onEvent?.(event);
}

/** Appends events for a run nobody drives right now, and hands them to the fan-out. */
export async function announce(ctx: ManagerContext, runId: string, bodies: RunEventBody[]): Promise<void> {
  broadcast(ctx, await appendEventBodies(ctx.options.store, runId, redactDeep(bodies, redactor(ctx.options.env))));
}

/** The answer to a control request, with the run's status as a client should show it now. */
export async function outcome(ctx: ManagerContext, id: string, action: ControlAction, answer: string): Promise<ControlOutcome> {
  const run = await ctx.options.store.getRun(id);
  let status: DisplayStatus = run === null ? 'stopped' : isOrphaned(run, probe(ctx)) && !owns(ctx, id) ? 'orphaned' : run.status;
  // A run driven here is paused or not as its controller says (the store learns it at the recorder's next write).
  const controller = ctx.active.get(id)?.controller;
  if (controller && (status === 'running' || status === 'paused')) status = controller.paused ? 'paused' : 'running';
  return { id, action, answer, status, transition: transitionOf(ctx, id) };
}
