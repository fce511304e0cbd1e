// The streaming signal scanner: tolerant of whitespace and case inside tags, and of chunk boundaries.
import { describe, expect, it } from 'vitest';
import { containsSignal, createSignalScanner, DEFAULT_SUCCESS_SIGNALS } from '../../src/core/signals.js';
import { formatElapsed, parseDuration } from '../../src/core/duration.js';

describe('signals', () => {
  it.each([
    ['<promise>COMPLETE</promise>', true],
    ['< promise >  complete\n</ promise>', true],
    ['<PROMISE>Complete</Promise>', true],
    ['text before <promise>SUCCESS</promise> after', true],
    ['<promise>COMPLETED</promise>', false],
    ['COMPLETE', false],
    ['<promise>NOT COMPLETE</promise>', false],
    // Seed 000's platform signal is a default too.
    ['done <ringmaster>COMPLETE</ringmaster>', true],
    ['< Ringmaster > complete </ringmaster>', true],
    ['<ringmaster>COMPLETED</ringmaster>', false],
  ])('%j -> %s', (text, expected) => {
    expect(containsSignal(text, DEFAULT_SUCCESS_SIGNALS)).toBe(expected);
  });

  it('matches a signal split at every possible position across two chunks', () => {
    const text = 'lots of output then <promise>COMPLETE</promise> and more';
    for (let i = 0; i <= text.length; i++) {
      const scanner = createSignalScanner(DEFAULT_SUCCESS_SIGNALS);
      scanner.feed(text.slice(0, i));
      scanner.feed(text.slice(i));
      expect(scanner.found).toBe(true);
    }
  });

  it('matches a signal fed one character at a time, after megabytes of other output', () => {
    const scanner = createSignalScanner(DEFAULT_SUCCESS_SIGNALS);
    for (let i = 0; i < 100; i++) scanner.feed('x'.repeat(65536));
    for (const ch of '<promise> COMPLETE </promise>') scanner.feed(ch);
    expect(scanner.found).toBe(true);
  });

  it('literal signals match case-insensitively with flexible whitespace', () => {
    expect(containsSignal('ALL   Done', ['all done'])).toBe(true);
    expect(containsSignal('anything', [''])).toBe(false);
  });
});

describe('durations', () => {
  it.each([
    ['90s', 90_000],
    ['5m', 300_000],
    ['4h', 14_400_000],
    ['1h30m', 5_400_000],
    ['250ms', 250],
    ['1.5s', 1500],
    ['30', 30_000],
  ])('%s = %d ms', (text, ms) => expect(parseDuration(text)).toBe(ms));
  it.each(['', 'abc', '5x', '-1s', '5 m'])('%j is invalid', (text) => expect(parseDuration(text)).toBeNull());
  it('formats elapsed time like seed 001', () => {
    expect(formatElapsed(45_200)).toBe('45.2s');
    expect(formatElapsed(136_000)).toBe('2m16s');
    expect(formatElapsed(155_900)).toBe('2m35s');
    expect(formatElapsed(3_723_000)).toBe('1h02m03s');
  });
});
