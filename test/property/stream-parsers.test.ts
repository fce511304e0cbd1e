// Property: each adapter's stream parser never throws, whatever the bytes, and finds exactly the same text (so
// the same signal) however the stream is cut into chunks, even mid-character, and with junk lines in between.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getAdapter } from '../../src/agents/registry.js';
import type { AgentAdapter } from '../../src/agents/types.js';
import { createSignalScanner } from '../../src/core/signals.js';
import { createLineSplitter } from '../../src/runner/line-splitter.js';
import { FIXTURES_DIR, invocationOptions, SIGNAL } from '../agents/run-adapter.js';
import { cutBytes } from './chunks.js';

/** Each JSON-lines adapter: a recorded run whose own text holds the signal, and one where only tool output does. */
const CASES: Array<{ agent: string; withSignal: string; toolOnly: string }> = [
  { agent: 'claude', withSignal: 'success', toolOnly: 'tool-output-signal' },
  { agent: 'codex', withSignal: 'success', toolOnly: 'tool-output-signal' },
  { agent: 'gemini', withSignal: 'complete', toolOnly: 'signal-in-tool-output' },
  { agent: 'opencode', withSignal: 'complete', toolOnly: 'signal-in-tool-output' },
  { agent: 'copilot', withSignal: 'complete', toolOnly: 'signal-in-tool-output' },
  { agent: 'amp', withSignal: 'success', toolOnly: 'tool-output-signal' },
  { agent: 'cursor', withSignal: 'success', toolOnly: 'tool-output-signal' },
];

interface Scan {
  found: boolean;
  text: string;
  usage: string;
}

/** Runs bytes through what the runner does: UTF-8 decoding per chunk, line splitting, the parser, the scanner. */
function scan(adapter: AgentAdapter, chunks: readonly Buffer[]): Scan {
  const parser = adapter.createParser(invocationOptions({ prompt: 'p', cwd: process.cwd() }));
  const scanner = createSignalScanner([SIGNAL]);
  let text = '';
  const usage: string[] = [];
  const take = (events: ReturnType<typeof parser.line>): void => {
    for (const e of events) {
      if (e.type === 'text') {
        text += e.text;
        scanner.feed(e.text);
      }
      if (e.type === 'usage' || e.type === 'cost') usage.push(JSON.stringify(e));
    }
  };
  const splitter = createLineSplitter((line) => take(parser.line(line)));
  const decoder = new StringDecoder('utf8');
  for (const chunk of chunks) splitter.push(decoder.write(chunk));
  splitter.push(decoder.end());
  splitter.end();
  take(parser.end());
  return { found: scanner.found, text, usage: usage.join('\n') };
}

const fixture = (agent: string, name: string): Buffer => readFileSync(join(FIXTURES_DIR, agent, `${name}.jsonl`));

describe.each(CASES)('$agent stream parser', ({ agent, withSignal, toolOnly }) => {
  const adapter = getAdapter({ name: agent, command: null });

  it('finds the signal in its own text and not in tool output, however the bytes are chunked', () => {
    for (const [name, expected] of [[withSignal, true], [toolOnly, false]] as const) {
      const bytes = fixture(agent, name);
      const whole = scan(adapter, [bytes]);
      expect(whole.found, `${name} whole`).toBe(expected);
      fc.assert(
        fc.property(fc.array(fc.nat(), { maxLength: 40 }), (offsets) => {
          const chunked = scan(adapter, cutBytes(bytes, offsets));
          expect(chunked).toEqual(whole);
        }),
        { numRuns: 150 },
      );
    }
  });

  it('never throws on junk, and junk lines between real ones change nothing', () => {
    const lines = fixture(agent, withSignal).toString('utf8').split('\n');
    const whole = scan(adapter, [Buffer.from(lines.join('\n'))]);
    const junk = fc.oneof(
      fc.string(),
      fc.json().map((j) => j.replace(/\n/g, ' ')),
      fc.constantFrom('{', '}', '[]', 'null', '{"type":null}', '{"type":"assistant"}', '{"type":"result","usage":"x"}', '\u0000\u0001', '{"type":"item.completed","item":7}'),
    ).filter((s) => !s.includes('\n') && !s.toLowerCase().includes('promise'));
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(), junk), { maxLength: 8 }), (insertions) => {
        const mixed = [...lines];
        for (const [at, line] of insertions) mixed.splice(at % (mixed.length + 1), 0, line);
        const result = scan(adapter, [Buffer.from(mixed.join('\n'))]);
        expect(result.found).toBe(whole.found);
      }),
      { numRuns: 150 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), (bytes) => {
        expect(() => scan(adapter, [Buffer.from(bytes)])).not.toThrow();
      }),
      { numRuns: 150 },
    );
  });
});
