// Prompt variables: the five names (bare or braced) in one pass, unknown names untouched, output bounded.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundOutput, PREVIOUS_OUTPUT_MAX_CHARS, substituteVariables, type PromptVariables } from '../../src/workflow/variables.js';

const VARS: PromptVariables = { userMessage: 'add a $ITERATION counter', workflowId: '20260101-abc', iteration: 3, maxIterations: 20, previousOutput: 'done with story 2' };

describe('workflow prompt variables', () => {
  it('substitutes every known variable, bare or braced', () => {
    const template = 'Task: $USER_MESSAGE\nRun ${WORKFLOW_ID}, iteration $ITERATION/$MAX_ITERATIONS.\nBefore: $PREVIOUS_OUTPUT';
    expect(substituteVariables(template, VARS)).toBe('Task: add a $ITERATION counter\nRun 20260101-abc, iteration 3/20.\nBefore: done with story 2');
  });

  it('leaves unknown names, longer names and lowercase names as written', () => {
    expect(substituteVariables('$HOME $ITERATIONS $ITERATION_COUNT ${NOPE} $user_message $ $5', VARS)).toBe('$HOME $ITERATIONS $ITERATION_COUNT ${NOPE} $user_message $ $5');
  });

  it('substitutes only the names asked for (the dry run keeps $PREVIOUS_OUTPUT and $WORKFLOW_ID)', () => {
    expect(substituteVariables('$ITERATION $WORKFLOW_ID $PREVIOUS_OUTPUT', VARS, new Set(['ITERATION']))).toBe('3 $WORKFLOW_ID $PREVIOUS_OUTPUT');
  });

  it('bounds the previous output to its end, saying how much was left out', () => {
    const long = `${'a'.repeat(100)}${'b'.repeat(PREVIOUS_OUTPUT_MAX_CHARS)}`;
    expect(boundOutput(long)).toBe(`[… 100 earlier characters omitted]\n${'b'.repeat(PREVIOUS_OUTPUT_MAX_CHARS)}`);
    expect(boundOutput(long)).toHaveLength(PREVIOUS_OUTPUT_MAX_CHARS + 35);
    expect(boundOutput('  short \n')).toBe('short');
  });

  it('property: values are never expanded again, whatever they contain', () => {
    const value = fc.string({ unit: fc.constantFrom('$', 'USER_MESSAGE', 'ITERATION', '{', '}', ' ', 'x') });
    fc.assert(
      fc.property(value, (message) => {
        expect(substituteVariables('[$USER_MESSAGE]', { ...VARS, userMessage: message })).toBe(`[${message}]`);
      }),
    );
  });
});
