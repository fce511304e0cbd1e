// The fully resolved description of a run: what the runner needs, nothing read from argv or files later.
import type { Limits } from '../core/types.js';
import type { PriceTable } from '../agents/pricing.js';
import type { PromptSource } from '../prompt/compose.js';

/** The agent part of a run spec. */
export interface AgentSettings {
  name: string;
  command: string[] | null;
  model: string | null;
  args: string[];
  /** Agents to switch to, in order, on a usage/rate limit. */
  fallback: string[];
  permissionMode: 'bypass' | 'default';
}

/** Everything a run needs, resolved from config, env and flags. Serialisable (stored with the run). */
export interface RunSpec {
  workspace: string;
  prompt: PromptSource;
  /** Extra context (`--context`), a section before the prompt. */
  context: string | null;
  /** Name shown in progress lines: procedure name, prompt file or 'prompt'. */
  label: string;
  limits: Limits;
  idleTimeoutMs: number | null;
  iterationTimeoutMs: number | null;
  killGraceMs: number;
  checkpointInterval: number;
  successSignals: string[];
  failureSignal: string;
  freshContext: boolean;
  /** Largest iteration log in bytes (head and tail kept around a marker); null = no cap. Absent in specs stored before the cap existed (the default cap applies). */
  maxLogBytes?: number | null;
  agent: AgentSettings;
  prices: PriceTable;
}
