// The prompt echo filter: a verbatim echo of the prompt at the start of the output is not the agent's text.
import { describe, expect, it } from 'vitest';
import { createEchoFilter } from '../../src/core/echo-filter.js';

const PROMPT = 'Do the work. When done, print <promise>COMPLETE</promise>.\n';

function run(chunks: string[]): string {
  const f = createEchoFilter(PROMPT);
  return chunks.map((c) => f.push(c)).join('') + f.end();
}

describe('echo filter', () => {
  it('drops an exact echo of the prompt, whole or in pieces, and keeps what follows', () => {
    expect(run([PROMPT])).toBe('\n');
    expect(run([PROMPT, 'my own words'])).toBe('\nmy own words');
    const pieces = [...PROMPT].map((c) => c);
    expect(run([...pieces, 'after'])).toBe('\nafter');
    expect(run(['\n  ', PROMPT.slice(0, 10), PROMPT.slice(10), 'tail'])).toBe('\ntail');
  });

  it('passes output that is not an echo through unchanged, including a partial echo that diverges', () => {
    expect(run(['hello'])).toBe('hello');
    expect(run(['Do the work. When done, I stop'])).toBe('Do the work. When done, I stop');
    expect(run(['Do the', ' work. Differently'])).toBe('Do the work. Differently');
    expect(run(['Do the work.'])).toBe('Do the work.');
    expect(run(['   '])).toBe('   ');
  });

  it('with an empty prompt everything passes', () => {
    const f = createEchoFilter('');
    expect(f.push('x')).toBe('x');
  });
});
