// Variables of workflow prompts: $USER_MESSAGE, $WORKFLOW_ID, $ITERATION, $MAX_ITERATIONS, $PREVIOUS_OUTPUT
// (also written ${NAME}). One pass: a value is never itself expanded; unknown $NAMES are left as written.

/** The most characters of the previous iteration's text that $PREVIOUS_OUTPUT carries (its end is kept). */
export const PREVIOUS_OUTPUT_MAX_CHARS = 8000;

/** Values of the variables of one iteration. */
export interface PromptVariables {
  /** The message the workflow was started with ('' when none). */
  userMessage: string;
  /** The run id. */
  workflowId: string;
  /** Iteration of the current step's loop (1 for a step without a loop). */
  iteration: number;
  /** The loop's max_iterations (1 for a step without a loop). */
  maxIterations: number;
  /** The agent's own text of the previous iteration, already bounded by boundOutput ('' at the first). */
  previousOutput: string;
}

/** The names substituted, as written in prompts. */
export const VARIABLE_NAMES = ['USER_MESSAGE', 'WORKFLOW_ID', 'ITERATION', 'MAX_ITERATIONS', 'PREVIOUS_OUTPUT'] as const;

/** The end of a text, cut to the bound with a marker saying how much was left out. */
export function boundOutput(text: string, max: number = PREVIOUS_OUTPUT_MAX_CHARS): string {
  const trimmed = text.trim();
  if (trimmed.length <= max) return trimmed;
  return `[… ${trimmed.length - max} earlier characters omitted]\n${trimmed.slice(trimmed.length - max)}`;
}

/** Substitutes the known variables of `vars` in `template`; `only` limits which are substituted (dry run). */
export function substituteVariables(template: string, vars: PromptVariables, only: ReadonlySet<string> = new Set(VARIABLE_NAMES)): string {
  const values: Record<string, string> = {
    USER_MESSAGE: vars.userMessage,
    WORKFLOW_ID: vars.workflowId,
    ITERATION: String(vars.iteration),
    MAX_ITERATIONS: String(vars.maxIterations),
    PREVIOUS_OUTPUT: vars.previousOutput,
  };
  return template.replace(/\$(?:\{([A-Z][A-Z0-9_]*)\}|([A-Z][A-Z0-9_]*))/g, (whole, braced: string | undefined, bare: string | undefined) => {
    const name = braced ?? bare ?? '';
    const value = values[name];
    return value !== undefined && only.has(name) ? value : whole;
  });
}
