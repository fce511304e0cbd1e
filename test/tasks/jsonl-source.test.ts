// tasks.jsonl: the seed 003 schema, errors that name file, line and field, and status write-back that
// leaves every other byte of the file as it was.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TaskFileError } from '../../src/tasks/errors.js';
import { applyJsonlStatus, jsonlSource, parseTasksJsonl } from '../../src/tasks/sources/jsonl.js';
import { useWorkspace } from '../helpers/cli.js';
import { makeTask } from './task-fixture.js';

const ws = useWorkspace('unused\n');

describe('parseTasksJsonl', () => {
  it('reads every field of seed 003 and fills the defaults', () => {
    const text = [
      '{"id":"RALPH-001","title":"Write the schema","description":"d","status":"in_progress","priority":3,"createdAt":"2025-01-02T00:00:00Z","dependsOn":["RALPH-000"],"completion":{"type":"test","command":"npm test -- --grep RALPH-001","timeout":"2m"},"limits":{"max_iterations":4,"max_runtime":"10m","max_cost":1.5},"acceptance":["a","b"],"extra":{"kept":true}}',
      '',
      '{"id":2,"title":"Minimal"}',
    ].join('\n');
    const [first, second] = parseTasksJsonl(text, 'tasks.jsonl');
    expect(first).toEqual({
      id: 'RALPH-001',
      title: 'Write the schema',
      description: 'd',
      status: 'in_progress',
      priority: 3,
      createdAt: '2025-01-02T00:00:00Z',
      dependsOn: ['RALPH-000'],
      completion: { type: 'test', command: 'npm test -- --grep RALPH-001', timeoutMs: 120_000 },
      limits: { maxIterations: 4, maxRuntimeMs: 600_000, maxCostUsd: 1.5 },
      acceptance: ['a', 'b'],
      blocker: null,
      order: 0,
      line: 1,
    });
    // Only id and title: every other field takes its default.
    expect(second).toEqual(makeTask('2', { title: 'Minimal', order: 1, line: 3 }));
  });

  it('accepts the four completion types', () => {
    const text = [
      '{"id":"a","title":"t","completion":{"type":"signal"}}',
      '{"id":"b","title":"t","completion":{"type":"file_exists","path":"./specs/task-schema.md"}}',
      '{"id":"c","title":"t","completion":{"type":"validate","script":"./skills/validate-task-001.ts"}}',
      '{"id":"d","title":"t","completion":{"type":"test","command":["npm","test"]}}',
    ].join('\n');
    expect(parseTasksJsonl(text, 'tasks.jsonl').map((t) => t.completion)).toEqual([
      { type: 'signal' },
      { type: 'file_exists', path: './specs/task-schema.md' },
      { type: 'validate', script: './skills/validate-task-001.ts', timeoutMs: null },
      { type: 'test', command: ['npm', 'test'], timeoutMs: null },
    ]);
  });

  const errors: Array<[string, string, string]> = [
    ['bad JSON', '{"id":"a","title":"t"}\n{"id": "b", title: "x"}\n', 'tasks.jsonl: line 2: invalid JSON: unexpected character (column 13)'],
    ['not an object', '["a"]\n', 'tasks.jsonl: line 1: expected a JSON object (one task per line)'],
    ['missing title', '{"id":"a"}\n', 'tasks.jsonl: line 1: title: Invalid input: expected string, received undefined'],
    ['empty id', '\n\n{"id":" ","title":"t"}\n', 'tasks.jsonl: line 3: id: expected a non-empty id'],
    ['bad status', '{"id":"a","title":"t","status":"doing"}\n', 'tasks.jsonl: line 1: status: Invalid option: expected one of "pending"|"in_progress"|"blocked"|"done"'],
    ['bad date', '{"id":"a","title":"t","createdAt":"yesterday"}\n', 'tasks.jsonl: line 1: createdAt: expected a date like 2025-01-31 or 2025-01-31T12:00:00Z'],
    ['bad completion type', '{"id":"a","title":"t","completion":{"type":"vibes"}}\n', "tasks.jsonl: line 1: completion.type: Invalid discriminator value. Expected 'signal' | 'test' | 'file_exists' | 'validate'"],
    ['test without command', '{"id":"a","title":"t","completion":{"type":"test"}}\n', 'tasks.jsonl: line 1: completion.command: Invalid input'],
    ['bad acceptance item', '{"id":"a","title":"t","acceptance":["ok",3]}\n', 'tasks.jsonl: line 1: acceptance[1]: Invalid input: expected string, received number'],
    ['bad limit', '{"id":"a","title":"t","limits":{"max_runtime":"soon"}}\n', 'tasks.jsonl: line 1: limits.max_runtime: expected seconds or a duration like 30m, got "soon"'],
    ['unknown limit', '{"id":"a","title":"t","limits":{"max_tokens":3}}\n', 'tasks.jsonl: line 1: limits: Unrecognized key: "max_tokens"'],
    ['duplicate id', '{"id":"a","title":"t"}\n{"id":"b","title":"t"}\n{"id":"a","title":"u"}\n', "tasks.jsonl: line 3: id: duplicate task id 'a' (also at line 1)"],
  ];
  it.each(errors)('%s names the file, the line and the field', (_name, text, message) => {
    let caught: unknown;
    try {
      parseTasksJsonl(text, 'tasks.jsonl');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TaskFileError);
    expect((caught as Error).message).toBe(message);
    expect((caught as TaskFileError).exitCode).toBe(64);
  });
});

describe('status write-back', () => {
  const original = [
    '{"id": "A-1",  "title": "first",   "status": "pending", "priority": 2}',
    '',
    '{ "id" : "A-2" , "title" : "second", "notes": {"x": [1, 2]} }',
    '{"title":"third","id":"A-3","status":"blocked","blocker":"old reason"}',
  ].join('\r\n') + '\r\n';

  it('changes only the value of status on the task line; other lines keep every byte, CRLF included', () => {
    const out = applyJsonlStatus(original, { id: 'A-1', status: 'in_progress', blocker: null }, 'tasks.jsonl');
    expect(out).toBe(original.replace('"status": "pending"', '"status": "in_progress"'));
  });

  it('adds a missing status (and a blocker) with the separator and colon of the last two properties', () => {
    const out = applyJsonlStatus(original, { id: 'A-2', status: 'blocked', blocker: 'max_iterations: 10 iterations used' }, 'tasks.jsonl');
    expect(out).toBe(original.replace('"notes": {"x": [1, 2]} }', '"notes": {"x": [1, 2]}, "status": "blocked", "blocker": "max_iterations: 10 iterations used" }'));
  });

  it('removes the blocker when a blocked task is done', () => {
    const out = applyJsonlStatus(original, { id: 'A-3', status: 'done', blocker: null }, 'tasks.jsonl');
    expect(out).toBe(original.replace('"status":"blocked","blocker":"old reason"', '"status":"done"'));
  });

  it('through the source: the file is rewritten in place and read back', async () => {
    const path = join(ws.dir, 'tasks.jsonl');
    writeFileSync(path, original);
    const source = jsonlSource(path, 'tasks.jsonl');
    await source.setStatus({ id: 'A-2', status: 'done', blocker: null });
    expect(readFileSync(path, 'utf8')).toBe(original.replace('"notes": {"x": [1, 2]} }', '"notes": {"x": [1, 2]}, "status": "done" }'));
    expect((await source.load()).map((t) => [t.id, t.status])).toEqual([
      ['A-1', 'pending'],
      ['A-2', 'done'],
      ['A-3', 'blocked'],
    ]);
    await expect(source.setStatus({ id: 'nope', status: 'done', blocker: null })).rejects.toThrow("tasks.jsonl: no task with id 'nope'");
  });

  it('a missing file is named', async () => {
    await expect(jsonlSource(join(ws.dir, 'missing.jsonl'), 'missing.jsonl').load()).rejects.toThrow('missing.jsonl: file not found');
  });
});
