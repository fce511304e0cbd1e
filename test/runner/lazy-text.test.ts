// Lazy text (runner/lazy-text.ts): a plain-text agent's flood of output is skipped but its last lines, and what is
// passed on gives the echo rule and the signal scanners the same answers as the whole text, however it is chunked.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEchoFilter } from '../../src/core/echo-filter.js';
import { createSignalScanner, DEFAULT_FAILURE_SIGNAL, DEFAULT_SUCCESS_SIGNALS } from '../../src/core/signals.js';
import { lazyText } from '../../src/runner/lazy-text.js';

const SIGNALS = [...DEFAULT_SUCCESS_SIGNALS, DEFAULT_FAILURE_SIGNAL];
const LT = 0x3c;
const PROMPT = 'Write a lot.\nWhen everything is written, print <promise>COMPLETE</promise> on a line of its own.\nIf stuck, print <promise>FAILURE</promise>\n';
const OWN_TEXT = 64 * 1024;

/** What an iteration learns from a text agent's output: its signals and the last 64 Ki characters of its own text. */
interface Verdict {
  success: boolean;
  failure: boolean;
  ownTail: string;
}

function scanner(): { text(t: string): void; restart(): void; verdict(): Verdict } {
  const echo = createEchoFilter(PROMPT, SIGNALS);
  const success = createSignalScanner(DEFAULT_SUCCESS_SIGNALS);
  const failure = createSignalScanner([DEFAULT_FAILURE_SIGNAL]);
  let own = '';
  const take = (t: string): void => {
    success.feed(t);
    failure.feed(t);
    own = (own + t).slice(-OWN_TEXT);
  };
  return {
    text: (t) => {
      for (const piece of echo.pieces(t)) take(piece);
    },
    restart: () => echo.restart(),
    verdict: () => {
      take(echo.end());
      return { success: success.found, failure: failure.found, ownTail: own };
    },
  };
}

/** The verdict on the whole output, decoded and passed at once. */
function eager(output: Buffer): Verdict {
  const s = scanner();
  s.text(output.toString('utf8'));
  return s.verdict();
}

/** The verdict through lazyText, the output cut at `offsets` and each piece pushed from one reused buffer. */
function lazy(output: Buffer, cuts: readonly number[]): Verdict & { passed: number; skips: number } {
  const s = scanner();
  let passed = 0;
  let skips = 0;
  const l = lazyText([LT], (t) => {
    passed += t.length;
    s.text(t);
  }, () => {
    skips += 1;
    s.restart();
  });
  const reused = Buffer.alloc(output.length);
  const points = [...new Set([0, ...cuts.map((c) => c % (output.length + 1)), output.length])].sort((a, b) => a - b);
  for (let i = 1; i < points.length; i++) {
    const [from, to] = [points[i - 1] as number, points[i] as number];
    const view = reused.subarray(0, to - from);
    output.copy(view, 0, from, to);
    l.push(view);
    view.fill(0x3c); // the caller's buffer is reused at once: lazyText must have copied what it holds
  }
  l.end();
  return { ...s.verdict(), passed, skips };
}

/** Lines of words (every 97th line without a word), `count` of them. */
function flood(count: number, seed: number): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) lines.push((i + seed) % 97 === 0 ? '-----' : `filler ${i} of the flood, the quick brown fox é ${seed}`);
  return `${lines.join('\n')}\n`;
}

describe('lazy text', () => {
  it('skips a flood but its last lines; a signal after it is passed whole and found', () => {
    const output = Buffer.from(`${flood(80_000, 1)}done: <promise>COMPLETE</promise>\n`);
    const cuts = Array.from({ length: Math.ceil(output.length / 8192) }, (_, i) => i * 8192);
    const got = lazy(output, cuts);
    const whole = eager(output);
    expect(whole.success).toBe(true);
    expect(got).toMatchObject({ success: true, failure: false, ownTail: whole.ownTail });
    expect(got.skips).toBeGreaterThan(0);
    expect(got.passed).toBeLessThan(1.5 * 1024 * 1024);
    expect(output.length).toBeGreaterThan(3 * 1024 * 1024);
  });

  it('an echo of the prompt after a flood is still refused; a signal split across chunks by a flood is found', () => {
    const echoed = Buffer.from(`${flood(25_000, 2)}${PROMPT}${flood(25_000, 3)}`);
    const echoCut = echoed.indexOf('COMPLETE');
    expect(lazy(echoed, [echoCut, echoCut + 3, echoed.indexOf('When')])).toMatchObject({ success: false, failure: false, ownTail: eager(echoed).ownTail });
    // Cut after its last '<': what completes it, and the words after it, are in a chunk without a signal start.
    const split = Buffer.from(`${flood(25_000, 4)}all done <promise>\n  COMPLETE </promise>${flood(25_000, 5)}`);
    const at = split.indexOf('</promise>') + 2;
    expect(eager(split).success).toBe(true);
    expect(lazy(split, [at, at + 3000, at + 5000])).toMatchObject({ success: true, ownTail: eager(split).ownTail });
  });

  it('gives the verdict of the whole text, however the output is cut and whatever it holds', () => {
    const part = fc.oneof(
      fc.integer({ min: 1, max: 30_000 }).chain((n) => fc.nat(1000).map((seed) => flood(n, seed))),
      fc.constantFrom(PROMPT, 'ok <promise>COMPLETE</promise>\n', '<promise>FAILURE</promise>', '<promise>', 'COMPLETE</promise>\n', '<', '\n', 'print', ' é '),
      fc.string({ maxLength: 40 }),
    );
    // Cuts anywhere, and cuts near the signal starts (a few bytes to a few KiB after one).
    const near = fc.array(fc.tuple(fc.nat(), fc.integer({ min: -2, max: 3000 })), { maxLength: 8 });
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 8 }), fc.array(fc.nat(), { maxLength: 12 }), near, (parts, cuts, nearStarts) => {
        const output = Buffer.from(parts.join(''));
        const starts = [...output.toString('latin1').matchAll(/</g)].map((m) => m.index);
        const nearCuts = starts.length === 0 ? [] : nearStarts.map(([k, d]) => Math.max(0, (starts[k % starts.length] as number) + d));
        const { passed: _passed, skips: _skips, ...verdict } = lazy(output, [...cuts, ...nearCuts]);
        expect(verdict).toEqual(eager(output));
      }),
      { numRuns: 30 },
    );
  });
});
