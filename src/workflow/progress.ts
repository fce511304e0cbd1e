// The progress wording of workflows (docs/workflows.md): steps, loop iterations, and how a loop ends.

/** `Step 2/3: implement`. */
export function stepLine(index: number, total: number, name: string): string {
  return `Step ${index}/${total}: ${name}`;
}

/** `Iteration 3/20`: the loop's own iteration, not the run's. */
export function iterationLine(iteration: number, maxIterations: number): string {
  return `Iteration ${iteration}/${maxIterations}`;
}

/** `Loop complete: ralph (3 iterations)`. */
export function loopCompleteLine(name: string, iterations: number): string {
  return `Loop complete: ${name} (${iterations} iteration${iterations === 1 ? '' : 's'})`;
}

/** The failure message when a loop runs out of iterations. */
export function maxIterationsMessage(maxIterations: number, until: string): string {
  return `Max iterations (${maxIterations}) reached without completion signal "${until}"`;
}

/** A step's failure, naming the step: `Step 2/3 (implement), iteration 4: <reason>`. */
export function stepFailureMessage(index: number, total: number, name: string, iteration: number | null, reason: string): string {
  return `Step ${index}/${total} (${name})${iteration === null ? '' : `, iteration ${iteration}`}: ${reason}`;
}

/** `Workflow complete: plan-implement-review (3 steps, 5 iterations)`: how a steps workflow ends. */
export function workflowCompleteLine(name: string, steps: number, iterations: number): string {
  return `Workflow complete: ${name} (${steps} step${steps === 1 ? '' : 's'}, ${iterations} iteration${iterations === 1 ? '' : 's'})`;
}
