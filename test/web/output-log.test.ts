// Agent activity -> output rows: markdown blocks, tool calls with their results and durations, raw lines
// (split across chunks, carriage returns applied), bounded, searchable.
import { beforeEach, describe, expect, it } from 'vitest';
import type { AgentActivity } from '../../web/src/api/api-types.js';
import { MAX_LINE, OutputLog, applyCarriageReturns, toolSummary, unseenPart, utf8Length } from '../../web/src/lib/output-log.js';

// Raw output chunks placed one after the other in their iteration's log, as the server numbers them.
const offsets = new Map<number, number>();
const out = (text: string, iteration = 1, stream: 'stdout' | 'stderr' = 'stdout', time = 1000): AgentActivity => {
  const offset = offsets.get(iteration) ?? 0;
  offsets.set(iteration, offset + utf8Length(text));
  return { kind: 'output', iteration, time, stream, offset, text };
};
let index = 0;
const text = (iteration: number, time: number, body: string): AgentActivity => ({ kind: 'text', iteration, time, index: index++, text: body });
const call = (iteration: number, time: number, name: string, input: string): AgentActivity => ({ kind: 'tool_call', iteration, time, index: index++, name, input });
const result = (iteration: number, time: number, name: string | null, output: string, is_error: boolean): AgentActivity => ({ kind: 'tool_result', iteration, time, index: index++, name, output, is_error });
beforeEach(() => {
  offsets.clear();
  index = 0;
});
const lines = (log: OutputLog) => log.items.flatMap((i) => (i.kind === 'line' ? [`${i.stream}:${i.text}`] : []));

describe('OutputLog', () => {
  it('turns text, tool calls and results into rows, with an iteration header per iteration', () => {
    const log = new OutputLog();
    const added = log.append([
      text(1, 100, 'I will **read** the plan.'),
      call(1, 200, 'Read', '{"file_path":"PLAN.md"}'),
      call(1, 250, 'Bash', '{"command":"npm test"}'),
      result(1, 900, 'Bash', '1 failed', true),
      result(1, 1200, null, '# Plan', false),
      text(2, 5000, 'Done.'),
    ]);
    expect(added).toBe(6);
    expect(log.items.map(({ id: _id, ...rest }) => rest)).toEqual([
      { kind: 'iteration', iteration: 1, time: 100 },
      { kind: 'text', iteration: 1, time: 100, text: 'I will **read** the plan.' },
      { kind: 'tool', iteration: 1, time: 200, name: 'Read', input: '{"file_path":"PLAN.md"}', output: '# Plan', isError: false, endTime: 1200 },
      { kind: 'tool', iteration: 1, time: 250, name: 'Bash', input: '{"command":"npm test"}', output: '1 failed', isError: true, endTime: 900 },
      { kind: 'iteration', iteration: 2, time: 5000 },
      { kind: 'text', iteration: 2, time: 5000, text: 'Done.' },
    ]);
    expect(log.items.map((i) => i.id)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('a tool result without its call (the call was dropped or never seen) is a row of its own', () => {
    const log = new OutputLog();
    log.append([result(3, 10, 'Edit', 'ok', false)]);
    expect(log.items[1]).toMatchObject({ kind: 'tool', name: 'Edit', input: '', output: 'ok', endTime: 10 });
  });

  it('joins lines split across chunks, per stream, and counts only new rows', () => {
    const log = new OutputLog();
    expect(log.append([out('hel')])).toBe(2);
    expect(log.append([out('lo\nwor'), out('warn', 1, 'stderr')])).toBe(2);
    expect(log.append([out('ld\n'), out('ing\n', 1, 'stderr'), out('next')])).toBe(1);
    expect(lines(log)).toEqual(['stdout:hello', 'stdout:world', 'stderr:warning', 'stdout:next']);
  });

  it('handles CRLF, and carriage-return progress lines show their last state', () => {
    const log = new OutputLog();
    log.append([out('a\r\nb\r\n'), out('progress 10%\r'), out('progress 50%\r'), out('progress 100%\ndone\n')]);
    expect(lines(log)).toEqual(['stdout:a', 'stdout:b', 'stdout:progress 100%', 'stdout:done']);
    expect(applyCarriageReturns('x\ry\r')).toBe('y\r');
    expect(applyCarriageReturns('\r')).toBe('\r');
  });

  it('a new iteration, text or tool call closes the open line', () => {
    const log = new OutputLog();
    log.append([out('partial'), text(1, 1, 't'), out('more'), out(' end', 2)]);
    expect(lines(log)).toEqual(['stdout:partial', 'stdout:more', 'stdout: end']);
  });

  it('cuts over-long lines', () => {
    const log = new OutputLog();
    log.append([out('x'.repeat(MAX_LINE + 10))]);
    const line = log.items[1];
    expect(line?.kind === 'line' ? line.text : '').toBe(`${'x'.repeat(MAX_LINE)} … [cut]`);
  });

  it('stays under maxItems by dropping the oldest rows in batches; ids and indexOf stay right', () => {
    const log = new OutputLog(100);
    for (let i = 0; i < 250; i++) log.append([out(`line ${i}\n`)]);
    expect(log.items.length).toBeLessThanOrEqual(100);
    expect(log.dropped + log.items.length).toBe(251);
    const last = log.items.at(-1);
    expect(last).toMatchObject({ kind: 'line', text: 'line 249', id: 250 });
    expect(log.indexOf(250)).toBe(log.items.length - 1);
    expect(log.indexOf(0)).toBe(-1);
  });

  it('puts earlier iterations in front: ids below the first row, indexOf, search and the live end unchanged', () => {
    const log = new OutputLog(10);
    log.append([out('three a\nthree b\n', 3)]);
    const firstId = log.items[0]?.id ?? -1;
    expect(log.prepend([out('two\n', 2)])).toBe(2);
    expect(log.prepend([])).toBe(0);
    expect(log.prepend([out('one\n', 1), out('one again\n', 1)])).toBe(3);
    expect(log.items.map((i) => (i.kind === 'iteration' ? `#${i.iteration}` : i.kind === 'line' ? i.text : i.kind))).toEqual(['#1', 'one', 'one again', '#2', 'two', '#3', 'three a', 'three b']);
    expect(log.items.map((i) => i.id)).toEqual([-5, -4, -3, -2, -1, 0, 1, 2].map((n) => n + firstId));
    expect(log.indexOf(firstId - 4)).toBe(1);
    expect(log.search('one')).toEqual([1, 2]);
    expect(log.lastIteration).toBe(3);
    // Live output goes on after the last row; a prepend past maxItems adds nothing.
    expect(log.append([out('three c\n', 3)])).toBe(1);
    expect(log.items.at(-1)).toMatchObject({ kind: 'line', text: 'three c', id: firstId + 3 });
    expect(log.prepend([out('a\nb\n', 0 + 1)])).toBeNull();
    expect(log.items).toHaveLength(9);
  });

  it('prepends into an empty log (an iteration without output yet)', () => {
    const log = new OutputLog();
    expect(log.prepend([out('two\n', 2)])).toBe(2);
    expect(log.append([out('four\n', 4)])).toBe(2);
    expect(log.items.map((i) => i.id)).toEqual([-2, -1, 0, 1]);
  });

  it('searches rows ignoring case, tools by name, input and output', () => {
    const log = new OutputLog();
    log.append([out('Error: boom\nok\n'), call(1, 1, 'Grep', 'ERROR')]);
    expect(log.search('error')).toEqual([1, 3]);
    expect(log.search('grep')).toEqual([3]);
    expect(log.search('  ')).toEqual([]);
  });

  it('notifies subscribers and bumps the version on change', () => {
    const log = new OutputLog();
    let calls = 0;
    const off = log.subscribe(() => calls++);
    log.append([out('a\n')]);
    log.append([]);
    log.clear();
    off();
    log.append([out('b\n')]);
    expect(calls).toBe(2);
    expect(log.version).toBe(3);
  });
});

describe('toolSummary', () => {
  it('shows the first string argument of a JSON input, or the input itself, on one line', () => {
    expect(toolSummary('{"command":"npm test","timeout":5}')).toBe('npm test');
    expect(toolSummary('{"limit":5}')).toBe('5');
    expect(toolSummary('ls -la\nsecond')).toBe('ls -la');
    expect(toolSummary('y'.repeat(200), 10)).toBe(`${'y'.repeat(9)}…`);
  });
});

describe('OutputLog merging stored and live activity', () => {
  it('takes each indexed piece of an iteration once, whichever source brings it first', () => {
    const log = new OutputLog();
    const piece = (i: number, body: string): AgentActivity => ({ kind: 'text', iteration: 4, time: i, index: i, text: body });
    // Live pieces 2 and 3 were held back while the stored activity (0..2) loaded; then live continues.
    log.append([piece(0, 'a'), piece(1, 'b'), piece(2, 'c')]);
    log.append([piece(2, 'c'), piece(3, 'd')]);
    log.append([piece(3, 'd'), piece(4, 'e')]);
    expect(log.items.flatMap((i) => (i.kind === 'text' ? [i.text] : []))).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('takes each byte of raw output once by its log offset: stored chunks, then live ones that overlap them', () => {
    const log = new OutputLog();
    const at = (offset: number, body: string, stream: 'stdout' | 'stderr' = 'stdout'): AgentActivity => ({ kind: 'output', iteration: 2, time: 0, stream, offset, text: body });
    // The log read back (one chunk), live chunks that were held back meanwhile (the first overlaps its end), more live.
    log.append([at(0, 'one\ntwo\nthr')]);
    log.append([at(4, 'two\n'), at(8, 'three\nfo'), at(16, 'ur\n')]);
    log.append([at(8, 'three\nfo'), at(19, 'five\n', 'stderr')]);
    expect(lines(log)).toEqual(['stdout:one', 'stdout:two', 'stdout:three', 'stdout:four', 'stderr:five']);
  });

  it('cuts a chunk at a byte offset inside it, counting UTF-8 bytes', () => {
    const chunk: Extract<AgentActivity, { kind: 'output' }> = { kind: 'output', iteration: 1, time: 0, stream: 'stdout', offset: 10, text: 'é✓x' };
    expect(utf8Length('é✓x')).toBe(6);
    expect(utf8Length('🎪')).toBe(4);
    expect(unseenPart(chunk, 16)).toBeNull();
    expect(unseenPart(chunk, 10)).toBe(chunk);
    expect(unseenPart(chunk, 12)).toEqual({ ...chunk, offset: 12, text: '✓x' });
    expect(unseenPart(chunk, 15)).toEqual({ ...chunk, offset: 15, text: 'x' });
  });
});
