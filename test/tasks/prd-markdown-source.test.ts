// prd.json (userStories with passes) and markdown checklists: parsing, errors with lines and fields, and
// write-back that touches only the story or the checkbox that changed. Format recognition from content.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyChecklistStatus, parseChecklist } from '../../src/tasks/sources/markdown.js';
import { detectFormat, findTaskFile, openTaskFile } from '../../src/tasks/sources/open.js';
import { applyPrdStatus, parsePrd } from '../../src/tasks/sources/prd.js';
import { useWorkspace } from '../helpers/cli.js';

const ws = useWorkspace('unused\n');

const PRD = `{
  "project": "MyApp",
  "branchName": "ralph/task-priority",
  "userStories": [
    {
      "id": "US-001",
      "title": "Add priority field to database",
      "description": "As a developer, I need to store task priority.",
      "acceptanceCriteria": ["Add priority column", "Typecheck passes"],
      "priority": 1,
      "passes": true,
      "notes": ""
    },
    {
      "id": "US-002",
      "title": "Display priority indicator",
      "description": "As a user, I want to see priority.",
      "acceptanceCriteria": ["Badge shows"],
      "priority": 2,
      "passes": false,
      "notes": "Use the existing badge component"
    },
    {"id": "US-003", "title": "Filter", "priority": 3, "passes": false, "dependsOn": ["US-002"]}
  ]
}
`;

describe('prd.json', () => {
  it('maps user stories to tasks (passes -> done, notes into the description, 1 = first)', () => {
    const tasks = parsePrd(PRD, 'prd.json');
    expect(tasks.map((t) => [t.id, t.status, t.priority, t.line, t.dependsOn])).toEqual([
      ['US-001', 'done', 1, 5, []],
      ['US-002', 'pending', 2, 14, []],
      ['US-003', 'pending', 3, 23, ['US-002']],
    ]);
    expect(tasks[1]).toMatchObject({
      description: 'As a user, I want to see priority.\n\nNotes: Use the existing badge component',
      acceptance: ['Badge shows'],
      completion: { type: 'signal' },
      createdAt: null,
    });
  });

  it('errors point at the story line and the field', () => {
    expect(() => parsePrd(PRD.replace('"title": "Display priority indicator",', ''), 'prd.json')).toThrow('prd.json: line 14: userStories[1].title: Invalid input: expected string, received undefined');
    expect(() => parsePrd(PRD.replace('"passes": false,\n      "notes": "Use', '"passes": "no",\n      "notes": "Use'), 'prd.json')).toThrow('prd.json: line 20: userStories[1].passes: Invalid input: expected boolean, received string');
    expect(() => parsePrd('{"stories": []}', 'prd.json')).toThrow('prd.json: line 1: userStories: expected an object with a userStories array');
    expect(() => parsePrd('{\n  "userStories": [\n    {"id": "a",}\n  ]\n}', 'prd.json')).toThrow('prd.json: line 3: invalid JSON: expected a property name in double quotes (column 16)');
  });

  it('done sets passes: true in place; blocked adds status and blocker in the style of the story', () => {
    const done = applyPrdStatus(PRD, { id: 'US-002', status: 'done', blocker: null }, 'prd.json');
    expect(done).toBe(PRD.replace('"priority": 2,\n      "passes": false', '"priority": 2,\n      "passes": true'));
    const blocked = applyPrdStatus(PRD, { id: 'US-002', status: 'blocked', blocker: 'max_cost: $5.1000 spent (limit $5)' }, 'prd.json');
    expect(blocked).toBe(
      PRD.replace(
        '"notes": "Use the existing badge component"\n',
        '"notes": "Use the existing badge component",\n      "status": "blocked",\n      "blocker": "max_cost: $5.1000 spent (limit $5)"\n',
      ),
    );
    expect(parsePrd(blocked, 'prd.json')[1]).toMatchObject({ status: 'blocked', blocker: 'max_cost: $5.1000 spent (limit $5)' });
    // Completing it later removes Ringmaster's fields again: the file is the Ralph format it was.
    expect(applyPrdStatus(blocked, { id: 'US-002', status: 'done', blocker: null }, 'prd.json')).toBe(done);
    const inline = applyPrdStatus(PRD, { id: 'US-003', status: 'in_progress', blocker: null }, 'prd.json');
    expect(inline).toBe(PRD.replace('"dependsOn": ["US-002"]}', '"dependsOn": ["US-002"], "status": "in_progress"}'));
  });
});

const TODO = `# Plan

Some intro text.

- [x] RALPH-001: Set up the project
- [ ] Write the parser
  It reads the file line by line.
  - [ ] handles CRLF
  - [ ] reports the line of an error
- [/] Write the parser
* [!] RALPH-004 Ship it <!-- ringmaster: blocked: waiting for a release -->

\`\`\`
- [ ] not a task: inside a code block
\`\`\`

1. [ ] numbered item
`;

describe('markdown checklist', () => {
  it('items are tasks in file order; indented lines are description and acceptance criteria', () => {
    const tasks = parseChecklist(TODO, 'TODO.md');
    expect(tasks.map((t) => [t.id, t.title, t.status, t.line])).toEqual([
      ['RALPH-001', 'Set up the project', 'done', 5],
      ['write-the-parser', 'Write the parser', 'pending', 6],
      ['write-the-parser-2', 'Write the parser', 'in_progress', 10],
      ['RALPH-004', 'Ship it', 'blocked', 11],
      ['numbered-item', 'numbered item', 'pending', 17],
    ]);
    expect(tasks[1]).toMatchObject({ description: 'It reads the file line by line.', acceptance: ['handles CRLF', 'reports the line of an error'] });
    expect(tasks[3]?.blocker).toBe('waiting for a release');
  });

  it('a status change rewrites the mark (and the blocker comment) only', () => {
    const crlf = TODO.replace(/\n/g, '\r\n');
    expect(applyChecklistStatus(crlf, { id: 'write-the-parser', status: 'done', blocker: null }, 'TODO.md')).toBe(crlf.replace('- [ ] Write the parser', '- [x] Write the parser'));
    expect(applyChecklistStatus(TODO, { id: 'numbered-item', status: 'blocked', blocker: 'tests -- fail\nagain' }, 'TODO.md')).toBe(
      TODO.replace('1. [ ] numbered item', '1. [!] numbered item <!-- ringmaster: blocked: tests - fail again -->'),
    );
    expect(applyChecklistStatus(TODO, { id: 'RALPH-004', status: 'pending', blocker: null }, 'TODO.md')).toBe(TODO.replace('* [!] RALPH-004 Ship it <!-- ringmaster: blocked: waiting for a release -->', '* [ ] RALPH-004 Ship it'));
    expect(() => applyChecklistStatus(TODO, { id: 'nope', status: 'done', blocker: null }, 'TODO.md')).toThrow("TODO.md: no checklist item with id 'nope'");
  });

  it('the same explicit id twice is an error naming the line', () => {
    expect(() => parseChecklist('- [ ] A-1: one\n- [ ] A-1: two\n', 'TODO.md')).toThrow("TODO.md: line 2: id: duplicate task id 'A-1' (also at line 1)");
  });
});

describe('format recognition', () => {
  it('from the content, the extension deciding only between equals', () => {
    expect(detectFormat('/x/tasks.jsonl', '{"id":"a","title":"t"}\n')).toBe('jsonl');
    expect(detectFormat('/x/backlog.txt', '{"id":"a","title":"t"}\n{"id":"b","title":"t"}\n')).toBe('jsonl');
    expect(detectFormat('/x/prd.json', PRD)).toBe('prd');
    expect(detectFormat('/x/stories', PRD)).toBe('prd');
    expect(detectFormat('/x/TODO.md', '# nothing yet\n')).toBe('markdown');
    expect(detectFormat('/x/todo.txt', '- [ ] a\n')).toBe('markdown');
    expect(detectFormat('/x/notes.txt', 'hello\n')).toBeNull();
  });

  it('finds tasks.jsonl, then prd.json, then TODO.md; a file that is none of them is an error', async () => {
    expect(findTaskFile(ws.dir)).toBeNull();
    writeFileSync(join(ws.dir, 'TODO.md'), '- [ ] a\n');
    expect(findTaskFile(ws.dir)).toBe(join(ws.dir, 'TODO.md'));
    writeFileSync(join(ws.dir, 'prd.json'), PRD);
    expect(findTaskFile(ws.dir)).toBe(join(ws.dir, 'prd.json'));
    writeFileSync(join(ws.dir, 'tasks.jsonl'), '');
    expect(findTaskFile(ws.dir)).toBe(join(ws.dir, 'tasks.jsonl'));
    const source = await openTaskFile('prd.json', ws.dir);
    expect([source.kind, source.name, source.path, source.priorityOrder]).toEqual(['prd', 'prd.json', join(ws.dir, 'prd.json'), 'lower_first']);
    writeFileSync(join(ws.dir, 'notes.txt'), 'hello\n');
    await expect(openTaskFile('notes.txt', ws.dir)).rejects.toThrow(
      'notes.txt: not a task file: expected tasks.jsonl lines (one JSON task per line), a prd.json with "userStories", or a markdown checklist ("- [ ] task")',
    );
  });
});
