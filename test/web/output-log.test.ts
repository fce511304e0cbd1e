// Agent activity -> output rows: markdown blocks, tool calls with their results and durations, raw lines
// (split across chunks, carriage returns applied), bounded, searchable.
import { describe, expect, it } from 'vitest';
import type { AgentActivity } from '../../web/src/api/api-types.js';
import { MAX_LINE, OutputLog, applyCarriageReturns, pieceIndex, toolSummary } from '../../web/src/lib/output-log.js';

const out = (text: string, iteration = 1, stream: 'stdout' | 'stderr' = 'stdout', time = 1000): AgentActivity => ({ kind: 'output', iteration, time, stream, text });
const lines = (log: OutputLog) => log.items.flatMap((i) => (i.kind === 'line' ? [`${i.stream}:${i.text}`] : []));

describe('OutputLog', () => {
  it('turns text, tool calls and results into rows, with an iteration header per iteration', () => {
    const log = new OutputLog();
    const added = log.append([
      { kind: 'text', iteration: 1, time: 100, text: 'I will **read** the plan.' },
      { kind: 'tool_call', iteration: 1, time: 200, name: 'Read', input: '{"file_path":"PLAN.md"}' },
      { kind: 'tool_call', iteration: 1, time: 250, name: 'Bash', input: '{"command":"npm test"}' },
      { kind: 'tool_result', iteration: 1, time: 900, name: 'Bash', output: '1 failed', is_error: true },
      { kind: 'tool_result', iteration: 1, time: 1200, name: null, output: '# Plan', is_error: false },
      { kind: 'text', iteration: 2, time: 5000, text: 'Done.' },
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
    log.append([{ kind: 'tool_result', iteration: 3, time: 10, name: 'Edit', output: 'ok', is_error: false }]);
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
    log.append([out('partial'), { kind: 'text', iteration: 1, time: 1, text: 't' }, out('more'), out(' end', 2)]);
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

  it('searches rows ignoring case, tools by name, input and output', () => {
    const log = new OutputLog();
    log.append([out('Error: boom\nok\n'), { kind: 'tool_call', iteration: 1, time: 1, name: 'Grep', input: 'ERROR', output: '' } as AgentActivity]);
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
    // The server numbers each piece of an iteration (`index`, an addition the dashboard asks of the activity schema).
    const piece = (index: number, text: string): AgentActivity => {
      const activity = { kind: 'output' as const, iteration: 4, time: index, stream: 'stdout' as const, text, index };
      return activity;
    };
    // Live pieces 2 and 3 were buffered while the stored activity (0..2) loaded; then live continues.
    log.append([piece(0, 'a\n'), piece(1, 'b\n'), piece(2, 'c\n')]);
    log.append([piece(2, 'c\n'), piece(3, 'd\n')]);
    log.append([piece(3, 'd\n'), piece(4, 'e\n')]);
    expect(lines(log)).toEqual(['stdout:a', 'stdout:b', 'stdout:c', 'stdout:d', 'stdout:e']);
    expect(pieceIndex(piece(7, ''))).toBe(7);
    expect(pieceIndex({ kind: 'text', iteration: 1, time: 0, text: '' })).toBeNull();
  });
});
