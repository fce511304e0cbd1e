// The library entry: `import { runLoop } from 'ringmaster'`. Thin: re-exports only.
export { runLoop, abortableSleep, iterationLogPath } from './runner/run-loop.js';
export type { RunDeps, RunSummary, ResumePoint } from './runner/run-loop.js';
export type { RunSpec, AgentSettings } from './runner/spec.js';
export type { RunEvent, RunEventSink } from './runner/events.js';
export { resolveRun } from './config/resolve.js';
export type { RunFlags, Resolution } from './config/resolve.js';
export { decide, classifyOutcome, initialState, limitReached } from './core/decide.js';
export { createSignalScanner, containsSignal, DEFAULT_SUCCESS_SIGNALS, DEFAULT_FAILURE_SIGNAL } from './core/signals.js';
export { parseDuration, formatElapsed } from './core/duration.js';
export type * from './core/types.js';
export { EXIT, UserError, UsageError, ConfigError } from './core/errors.js';
export { getAdapter, registerAgent, agentNames } from './agents/registry.js';
export type { AgentAdapter, AgentEvent, StreamParser, Invocation, InvocationOptions } from './agents/types.js';
export { computeCostUsd } from './agents/pricing.js';
export { supervise } from './agents/supervisor.js';
export { openStore } from './store/index.js';
export type { Store } from './store/index.js';
