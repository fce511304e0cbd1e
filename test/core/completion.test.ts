// Workflow completion detection: the promise form anywhere (any case, whitespace inside the tags), the plain
// signal only on its own line or at the end, the same verdict however the output is cut into chunks.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCompletionScanner, detectCompletion, signalBody } from '../../src/core/completion.js';

/** The rule as the README states it, on the whole text at once (no streaming, no carry-over). */
function reference(text: string, signal: string): boolean {
  const body = signalBody(signal);
  const words = body.split(' ').map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const promise = new RegExp(`<\\s*promise\\s*>\\s*${words.join('\\s+')}\\s*<\\s*/\\s*promise\\s*>`, 'i');
  if (promise.test(text)) return true;
  const plain = `[*_\`]*${words.join('\\s+')}[*_\`.!]*`;
  const ownLine = new RegExp(`^${plain}$`);
  const collapsed = (s: string) => s.replace(/\s+/g, ' ').trim();
  if (text.split('\n').some((line) => collapsed(line).length <= body.length + 16 && ownLine.test(collapsed(line)))) return true;
  return new RegExp(`(?:^|[^\\p{L}\\p{N}_])${plain}$`, 'u').test(text.trimEnd());
}

/** Feeds the text cut at the given (sorted, deduplicated) positions. */
function streamed(text: string, signal: string, cuts: number[]): boolean {
  const scanner = createCompletionScanner(signal);
  let from = 0;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    scanner.feed(text.slice(from, cut));
    from = cut;
  }
  scanner.feed(text.slice(from));
  return scanner.end();
}

const TOKENS = ['COMPLETE', 'complete', 'Complete', 'DONE', '<promise>', '</promise>', '< PROMISE >', '</ promise>', ' ', '  ', '\n', '\n\n', '\t', '\r\n', '*', '**', '`', '.', '!', 'x', 'not', 'the work is', ':', '-', 'é'];
const outputs = fc.array(fc.constantFrom(...TOKENS), { maxLength: 40 }).map((parts) => parts.join(''));
const withCuts = outputs.chain((text) => fc.tuple(fc.constant(text), fc.array(fc.integer({ min: 0, max: text.length }), { maxLength: 8 })));

describe('workflow completion signal', () => {
  it.each([
    ['All stories pass. <promise>COMPLETE</promise>', true],
    ['<promise>  complete \n </promise> and then more text', true],
    ['< Promise >Complete</ PROMISE >', true],
    ['Working on it.\nCOMPLETE\nNext I will...', true],
    ['Working on it.\n  **COMPLETE**  \nmore', true],
    ['Every story passes: COMPLETE', true],
    ['Every story passes.\nCOMPLETE.\n\n', true],
    ['The loop ends with COMPLETE once every story passes; two stories are left.', false],
    ['I will print COMPLETE when done.\nStill working.', false],
    ['complete', false],
    ['COMPLETED', false],
    ['INCOMPLETE', false],
    ['<promise>COMPLETED</promise>', false],
    ['<promise>NOT COMPLETE</promise>', false],
    ['', false],
  ])('%j -> %s', (text, expected) => {
    expect(detectCompletion(text, 'COMPLETE')).toBe(expected);
  });

  it('accepts the signal written in its promise form, and multi-word signals with any whitespace', () => {
    expect(signalBody('<promise> ALL   DONE </promise>')).toBe('ALL DONE');
    expect(detectCompletion('ok <promise>all\n done</promise>', '<promise>ALL DONE</promise>')).toBe(true);
    expect(detectCompletion('first\nALL  DONE\nthen', 'ALL DONE')).toBe(true);
    expect(() => createCompletionScanner('<promise> </promise>')).toThrow('cannot be empty');
  });

  it('counts the end-of-output rule only once the output has ended', () => {
    const scanner = createCompletionScanner('DONE');
    expect(scanner.feed('it is DONE')).toBe(false);
    expect(scanner.found).toBe(false);
    expect(scanner.end()).toBe(true);
    expect(scanner.found).toBe(true);
  });

  it('keeps memory bounded: a huge line or output does not grow the scanner, and a signal after it is still seen', () => {
    const scanner = createCompletionScanner('COMPLETE');
    for (let i = 0; i < 50; i++) scanner.feed(`${'x'.repeat(65_536)} COMPLETE ${' '.repeat(1000)}`);
    expect(scanner.found).toBe(false);
    scanner.feed('\n   COMPLETE   ');
    expect(scanner.feed('\n')).toBe(true);
  });

  it('property: the verdict does not depend on where the output is cut into chunks', () => {
    fc.assert(
      fc.property(withCuts, fc.constantFrom('COMPLETE', 'DONE', '<promise>COMPLETE</promise>'), ([text, cuts], signal) => {
        expect(streamed(text, signal, cuts)).toBe(detectCompletion(text, signal));
      }),
      { numRuns: 2000 },
    );
  });

  it('property: the scanner agrees with the rule stated on the whole text', () => {
    fc.assert(
      fc.property(outputs, fc.constantFrom('COMPLETE', 'DONE'), (text, signal) => {
        expect(detectCompletion(text, signal)).toBe(reference(text, signal));
      }),
      { numRuns: 2000 },
    );
  });

  it('property: a promise in any case, with any whitespace inside the tags, anywhere in any output, is found', () => {
    const spaces = fc.constantFrom('', ' ', '\n', ' \t ');
    const casing = fc.array(fc.boolean(), { minLength: 15, maxLength: 15 });
    fc.assert(
      fc.property(outputs, outputs, spaces, spaces, spaces, casing, (before, after, s1, s2, s3, upper) => {
        const raw = `<${s1}promise${s1}>${s2}COMPLETE${s2}<${s3}/${s3}promise${s3}>`;
        let k = 0;
        const tag = raw.replace(/[a-z]/gi, (c) => ((upper[k++ % upper.length] ?? false) ? c.toUpperCase() : c.toLowerCase()));
        expect(detectCompletion(`${before}${tag}${after}`, 'COMPLETE')).toBe(true);
      }),
    );
  });

  it('property: the plain signal inside a sentence, with words on both sides, never ends a loop', () => {
    const word = fc.stringMatching(/^[a-z]{1,8}$/);
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 5 }), fc.array(word, { minLength: 1, maxLength: 5 }), (left, right) => {
        expect(detectCompletion(`${left.join(' ')} COMPLETE ${right.join(' ')}\nmore prose`, 'COMPLETE')).toBe(false);
      }),
    );
  });
});
