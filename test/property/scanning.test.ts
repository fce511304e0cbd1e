// Properties of signal scanning, the echo rule and redaction: chunking never changes the answer; an echo of the
// prompt (anywhere, any number of times, with anything around it) never counts; the agent's own signal always does.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEchoFilter } from '../../src/core/echo-filter.js';
import { byteStreamRedactor, redactor, textStreamRedactor } from '../../src/core/redact.js';
import { containsSignal, createSignalScanner, DEFAULT_FAILURE_SIGNAL, DEFAULT_SUCCESS_SIGNALS } from '../../src/core/signals.js';
import { cutBytes, cutText } from './chunks.js';

const SIGNALS = [...DEFAULT_SUCCESS_SIGNALS, DEFAULT_FAILURE_SIGNAL];

/** Text that may hold signal fragments and spacing variants. */
const noisy = fc.array(
  fc.oneof(fc.string(), fc.constantFrom('<promise>', '</promise>', 'COMPLETE', 'complete', '<promise>COMPLETE</promise>', '< promise >\n complete </ promise >', '\n', ' ', 'FAILURE', '<prom', 'ise>')),
  { maxLength: 20 },
).map((parts) => parts.join(''));

/** Words an agent writes that cannot be mistaken for the prompt's words around its signal. */
const ownWords = fc.array(fc.constantFrom('tests', 'pass', 'all', 'good', 'finished', 'ok', 'the', 'build', 'is', 'green'), { minLength: 1, maxLength: 8 }).map((w) => w.join(' '));

const prompt = fc
  .tuple(fc.array(fc.lorem({ maxCount: 8 }), { maxLength: 4 }), fc.lorem({ maxCount: 6 }), fc.lorem({ maxCount: 4 }))
  .map(([before, lead, tail]) => [...before, `${lead} Finally print <promise>COMPLETE</promise> ${tail}.`, 'If stuck, print <promise>FAILURE</promise> and stop.', ''].join('\n'));

describe('signal scanner', () => {
  it('finds a signal exactly when the whole text contains one, however it is chunked', () => {
    fc.assert(
      fc.property(noisy, fc.array(fc.nat(), { maxLength: 30 }), (text, offsets) => {
        const scanner = createSignalScanner(DEFAULT_SUCCESS_SIGNALS);
        for (const p of cutText(text, offsets)) scanner.feed(p);
        expect(scanner.found).toBe(containsSignal(text, DEFAULT_SUCCESS_SIGNALS));
      }),
      { numRuns: 500 },
    );
  });
});

describe('echo rule', () => {
  const filtered = (p: string, output: string, offsets: readonly number[]): string => {
    const f = createEchoFilter(p, SIGNALS);
    return cutText(output, offsets).map((x) => f.push(x)).join('') + f.end();
  };

  it('chunking never changes what is scanned', () => {
    fc.assert(
      fc.property(prompt, noisy, fc.array(fc.nat(), { maxLength: 30 }), (p, output, offsets) => {
        expect(filtered(p, output, offsets)).toBe(filtered(p, output, []));
      }),
      { numRuns: 300 },
    );
  });

  it('echoes of the prompt, after and among anything without a signal, are never a signal', () => {
    const plain = fc.string().filter((s) => !/promise|complete|failure/i.test(s));
    fc.assert(
      fc.property(prompt, fc.array(fc.oneof(plain, fc.constant('ECHO')), { minLength: 1, maxLength: 6 }), fc.constantFrom('', '> ', 'You said: "', '[agent] '), fc.array(fc.nat(), { maxLength: 20 }), (p, parts, quote, offsets) => {
        const echo = p.split('\n').map((l) => `${quote}${l}`).join('\n');
        const output = parts.map((x) => (x === 'ECHO' ? `\n${echo}\n` : x)).join('');
        const scanned = filtered(p, output, offsets);
        expect(containsSignal(scanned, DEFAULT_SUCCESS_SIGNALS)).toBe(false);
        expect(containsSignal(scanned, [DEFAULT_FAILURE_SIGNAL])).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it("the agent's own signal after its own words always counts, even right after an echo", () => {
    fc.assert(
      fc.property(prompt, fc.boolean(), ownWords, fc.array(fc.nat(), { maxLength: 20 }), (p, echoFirst, words, offsets) => {
        const output = `${echoFirst ? p : ''}${words}\n<promise>COMPLETE</promise>\n`;
        expect(containsSignal(filtered(p, output, offsets), DEFAULT_SUCCESS_SIGNALS)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('redaction', () => {
  const secret = fc.string({ minLength: 8, maxLength: 40 }).filter((s) => s.trim() === s && s.length >= 8);
  it('streams redact exactly as the whole text is redacted, and no secret survives', () => {
    fc.assert(
      fc.property(secret, secret, fc.array(fc.oneof(fc.string(), fc.constant('S1'), fc.constant('S2')), { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 20 }), (s1, s2, parts, offsets) => {
        const redact = redactor({ FIRST_API_KEY: s1, SECOND_TOKEN: s2 });
        const text = parts.map((x) => (x === 'S1' ? s1 : x === 'S2' ? s2 : x)).join('');
        const whole = redact(text);
        const t = textStreamRedactor(redact);
        expect(cutText(text, offsets).map((x) => t.push(x)).join('') + t.end()).toBe(whole);
        const b = byteStreamRedactor(redact.secrets);
        const bytes = Buffer.from(text);
        const out = Buffer.concat([...cutBytes(bytes, offsets).map((x) => b.push(x)), b.end()]);
        expect(out.equals(Buffer.from(whole))).toBe(true);
        for (const s of redact.secrets) expect(whole.includes(s.value)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
