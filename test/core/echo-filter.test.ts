// The echo rule: a signal the output reproduces from the prompt (same words around it) is not the agent's signal,
// whatever else the output says before or after, however often, however chunked.
import { describe, expect, it } from 'vitest';
import { createEchoFilter, promptContexts } from '../../src/core/echo-filter.js';
import { containsSignal, DEFAULT_FAILURE_SIGNAL, DEFAULT_SUCCESS_SIGNALS } from '../../src/core/signals.js';

const SIGNALS = [...DEFAULT_SUCCESS_SIGNALS, DEFAULT_FAILURE_SIGNAL];
const PROMPT = [
  'Read IMPLEMENTATION_PLAN.md and implement the first unchecked item.',
  'Run the tests and commit.',
  'When every item is done and the tests pass, print <promise>COMPLETE</promise>.',
  'If you are stuck, print <promise>FAILURE</promise> and explain why.',
  '',
].join('\n');

/** What the scanners see of `output` pushed in `chunks` pieces. */
function filtered(output: string, prompt = PROMPT, pieces = 1): string {
  const f = createEchoFilter(prompt, SIGNALS);
  let out = '';
  const size = Math.max(1, Math.ceil(output.length / pieces));
  for (let i = 0; i < output.length; i += size) out += f.push(output.slice(i, i + size));
  return out + f.end();
}

const success = (output: string, prompt = PROMPT, pieces = 1): boolean => containsSignal(filtered(output, prompt, pieces), DEFAULT_SUCCESS_SIGNALS);
const failure = (output: string, prompt = PROMPT, pieces = 1): boolean => containsSignal(filtered(output, prompt, pieces), [DEFAULT_FAILURE_SIGNAL]);

describe('echoes are not signals', () => {
  const echoes: Array<[string, string]> = [
    ['a verbatim echo', PROMPT],
    ['an echo after other output', `Starting up...\nloading model\n${PROMPT}`],
    ['the prompt echoed twice', `${PROMPT}${PROMPT}`],
    ['quoted: You said: "..."', `You said: "${PROMPT.trim()}"\nOK, working on it.\n`],
    ['quoted as a markdown block', PROMPT.split('\n').map((l) => `> ${l}`).join('\n')],
    ['upper-cased, re-spaced and without the final period', PROMPT.toUpperCase().replace(/ /g, '   ').replace(/\.\n/g, '\n')],
    ['one line of it, mid-sentence', 'I read your instruction (when every item is done and the tests pass, print <promise>COMPLETE</promise>) and will follow it.\n'],
    ['the signal lines only, as a list', '- When every item is done and the tests pass, print <promise>COMPLETE</promise>.\n- If you are stuck, print <promise>FAILURE</promise> and explain why.\n'],
    ['with the signal spaced differently', 'When every item is done and the tests pass, print < promise > complete </promise>.\n'],
    ['echoed on stderr-like prefixes', `[agent] ${PROMPT.split('\n').join('\n[agent] ')}`],
  ];
  it.each(echoes)('%s', (_name, output) => {
    for (const pieces of [1, 3, 17, output.length]) {
      expect(success(output, PROMPT, pieces), `${pieces} pieces`).toBe(false);
      expect(failure(output, PROMPT, pieces), `${pieces} pieces`).toBe(false);
    }
  });
});

describe("the agent's own signals still count", () => {
  const own: Array<[string, string]> = [
    ['alone on the last line', 'Implemented the last item; all tests pass.\n<promise>COMPLETE</promise>\n'],
    ['after an echo of the prompt', `${PROMPT}All items are done.\n<promise>COMPLETE</promise>\n`],
    ['right after the echoed line', `${PROMPT.trim()}\n<promise>COMPLETE</promise>\n`],
    ['on the same line as an echo', 'When every item is done and the tests pass, print <promise>COMPLETE</promise>. Done: <promise>COMPLETE</promise>\n'],
    ['in a sentence of its own', 'Everything is finished <promise>COMPLETE</promise>\n'],
    ['without a final newline', 'done <promise>COMPLETE</promise>'],
    ['split across chunks and lines', 'almost <prom' + 'ise>\n  compl' + 'ETE </promise>\n'],
  ];
  it.each(own)('%s', (_name, output) => {
    for (const pieces of [1, 2, 5, output.length]) expect(success(output, PROMPT, pieces), `${pieces} pieces`).toBe(true);
  });

  it('a failure signal of its own counts, and an echo of the success line does not hide it', () => {
    expect(failure(`${PROMPT}I cannot go on. <promise>FAILURE</promise>\n`)).toBe(true);
  });
});

describe('prompt contexts', () => {
  it('takes up to 4 words before and after each signal on its line (or the end of the line before); a bare signal has none', () => {
    expect(promptContexts('When done, print this line:\n<promise>COMPLETE</promise>\n', SIGNALS)).toEqual([
      { key: '<promise>complete</promise>', before: ['done', 'print', 'this', 'line'], beforeFrom: 'previous_line', after: [] },
    ]);
    expect(promptContexts('Intro.\nPrint <promise>COMPLETE</promise> when all is done, really.', SIGNALS)).toEqual([
      { key: '<promise>complete</promise>', before: ['print'], beforeFrom: 'line', after: ['when', 'all', 'is', 'done'] },
    ]);
    expect(promptContexts('<promise>COMPLETE</promise>\n', SIGNALS)).toEqual([]);
    expect(promptContexts('no signal here', SIGNALS)).toEqual([]);
  });

  it('a bare signal line in the prompt: its echo (after the line before it) is blanked; the agent printing it after its own words is not', () => {
    const prompt = 'Do the work.\nWhen done, print this line:\n<promise>COMPLETE</promise>\n';
    expect(success(prompt, prompt)).toBe(false);
    expect(success('The work is done.\n<promise>COMPLETE</promise>\n', prompt)).toBe(true);
  });

  it('without signals or without a prompt, everything passes unchanged', () => {
    expect(createEchoFilter('', SIGNALS).push('x <promise>COMPLETE</promise>\n')).toBe('x <promise>COMPLETE</promise>\n');
    expect(createEchoFilter(PROMPT, []).push('y')).toBe('y');
  });
});
