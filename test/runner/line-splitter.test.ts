// The JSON-lines splitter: lines across chunks, CRLF, and a bounded buffer for absurdly long lines.
import { expect, it } from 'vitest';
import { createLineSplitter } from '../../src/runner/line-splitter.js';

it('splits lines across chunks and strips CR', () => {
  const lines: string[] = [];
  const s = createLineSplitter((l) => lines.push(l));
  s.push('{"a":1}\r\n{"b"');
  s.push(':2}\n\n{"c":3}');
  s.end();
  expect(lines).toEqual(['{"a":1}', '{"b":2}', '', '{"c":3}']);
  expect(s.oversized).toBe(0);
});

it('drops a line longer than the cap without buffering it, and counts it', () => {
  const lines: string[] = [];
  const s = createLineSplitter((l) => lines.push(l), 10);
  s.push('short\n');
  for (let i = 0; i < 1000; i++) s.push('x'.repeat(100));
  s.push('tail of the long line\nnext\n');
  s.end();
  expect(lines).toEqual(['short', 'next']);
  expect(s.oversized).toBe(1);
});
