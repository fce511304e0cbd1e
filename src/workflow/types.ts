// A workflow as the program runs it: normalised from the file (camelCase, defaults applied, durations in ms).

/** Where a step's prompt comes from: inline text, or a command file (re-read at every iteration). */
export type PromptRef = { kind: 'text'; text: string } | { kind: 'command'; name: string; path: string };

/** A loop: iterate one prompt until the signal, the until_command, or a limit. */
export interface LoopSpec {
  until: string;
  maxIterations: number;
  freshContext: boolean;
  /** argv run in the workspace after each iteration: exit 0 also ends the loop. */
  untilCommand: string[] | null;
  maxCostUsd: number | null;
  maxRuntimeMs: number | null;
  idleTimeoutMs: number | null;
}

/** One step: run once, or iterated when it has a loop. A loop workflow is a single loop step. */
export interface WorkflowStep {
  /** 1-based position. */
  index: number;
  name: string;
  prompt: PromptRef;
  /** Agent and model of this step (null: the workflow's, then the run's). */
  agent: string | null;
  model: string | null;
  /** Start a new agent session at this step instead of continuing the previous step's. */
  clearContext: boolean;
  loop: LoopSpec | null;
}

/** A validated workflow. */
export interface Workflow {
  name: string;
  description: string;
  /** 'loop': the file has a top-level loop (one step); 'steps': a list of steps. */
  kind: 'steps' | 'loop';
  agent: string | null;
  model: string | null;
  steps: WorkflowStep[];
  /** The file it was read from. */
  file: string;
  source: 'project' | 'built-in';
}

/** One problem in a workflow file, with the line it is on. */
export interface WorkflowProblem {
  file: string;
  line: number;
  /** The key it is about, dotted (`steps.2.loop.until`), or '' for the file as a whole. */
  key: string;
  message: string;
}
