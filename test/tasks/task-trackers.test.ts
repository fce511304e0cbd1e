// The tracker written back in every format by a real task run: prd.json (passes, status, blocker),
// a markdown checklist (marks and the blocker comment), and a command source (the status command told
// each change; the run's own record keeps a task done when the list command does not say so).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { events, iterations, ofType, useTaskWorkspaces } from './task-run-harness.js';

const workspace = useTaskWorkspaces();
const COMPLETE = '<promise>COMPLETE</promise>';
const BLOCKED = (why: string): string => `<ringmaster-result>{"status":"blocked","blocker":"${why}"}</ringmaster-result>`;

const PRD = `{
  "project": "MyApp",
  "userStories": [
    {
      "id": "US-001",
      "title": "Add priority field",
      "acceptanceCriteria": ["Add priority column"],
      "priority": 1,
      "passes": false,
      "notes": ""
    },
    {"id": "US-002", "title": "Display priority", "priority": 2, "passes": false}
  ]
}
`;

it('prd.json: passes becomes true when a story is done; a blocked story gets status and blocker, nothing else moves', { timeout: 60_000 }, async () => {
  const ws = workspace({ 'prd.json': PRD });
  ws.script({ 'US-001': [{ write: { 'db.sql': 'alter table\n' }, say: COMPLETE }], 'US-002': [{ say: BLOCKED('design missing') }] });
  const r = await ws.cli(['tasks', 'run', '--agent-command', ws.agentCommand, '--json']);
  expect(r.code).toBe(2);
  expect(iterations(events(r.stdout))).toEqual([[1, 'US-001', 1, 'complete', 'none'], [2, 'US-002', 1, 'success', 'none']]);
  expect(ws.read('prd.json')).toBe(
    PRD.replace('"passes": false,\n      "notes"', '"passes": true,\n      "notes"').replace(
      '"passes": false}',
      '"passes": false, "status": "blocked", "blocker": "the agent is blocked: design missing"}',
    ),
  );
  expect(ws.subjects()).toEqual(['[ringmaster] US-002: Display priority (blocked: the agent is blocked: design missing)', '[ringmaster] US-001: Add priority field', 'initial']);
});

it('a markdown checklist: [x] when done, [!] with a hidden reason when blocked; ids from the item', { timeout: 60_000 }, async () => {
  const todo = '# TODO\n\n- [ ] First thing\n  with a description\n- [x] Done already\n- [ ] RALPH-7: Second thing\n';
  const ws = workspace({ 'TODO.md': todo });
  ws.script({ 'first-thing': [{ say: COMPLETE }], 'RALPH-7': [{ say: BLOCKED('later') }] });
  const r = await ws.cli(['tasks', 'run', 'TODO.md', '--agent-command', ws.agentCommand, '--json']);
  expect(r.code).toBe(2);
  expect(ofType(events(r.stdout), 'task_started').map((e) => [e.task_id, e.title])).toEqual([['first-thing', 'First thing'], ['RALPH-7', 'Second thing']]);
  expect(ws.read('TODO.md')).toBe('# TODO\n\n- [x] First thing\n  with a description\n- [x] Done already\n- [!] RALPH-7: Second thing <!-- ringmaster: blocked: the agent is blocked: later -->\n');
  expect(ws.prompt('first-thing', 1)).toContain('## Description\nwith a description\n');
});

it('a command source: the status command is told every change; tasks done by the run stay done', { timeout: 60_000 }, async () => {
  const ws = workspace({ 'README.md': 'project\n' });
  const list = join(ws.agentDir, 'list.json');
  const log = join(ws.agentDir, 'status.log');
  writeFileSync(list, JSON.stringify({ tasks: [{ id: 'GH-1', title: 'fix the bug', priority: 2 }, { id: 'GH-2', title: 'write docs', priority: 1 }] }));
  writeFileSync(join(ws.agentDir, 'status.mjs'), `import { appendFileSync, readFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(log)}, process.argv.slice(2).join(' ') + ' ' + readFileSync(0, 'utf8'));\n`);
  writeFileSync(
    join(ws.dir, 'ringmaster.yml'),
    `tasks:\n  command: [${JSON.stringify(process.execPath)}, "-e", "process.stdout.write(require('fs').readFileSync(${JSON.stringify(list).replace(/"/g, "'")}, 'utf8'))"]\n  status_command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(join(ws.agentDir, 'status.mjs'))}]\n`,
  );
  ws.script({ 'GH-1': [{ write: { 'fix.txt': 'fixed\n' }, say: COMPLETE }], 'GH-2': [{ write: { 'docs.md': '# docs\n' }, say: COMPLETE }] });
  const r = await ws.cli(['tasks', 'run', '--agent-command', ws.agentCommand, '--json']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const all = events(r.stdout);
  expect(ofType(all, 'task_completed').map((e) => e.task_id)).toEqual(['GH-1', 'GH-2']);
  expect(all.at(-1)).toMatchObject({ stop_reason: 'success_signal', message: 'every task is done (2 done and 0 blocked by this run)' });
  const { readFileSync } = await import('node:fs');
  expect(readFileSync(log, 'utf8')).toBe(
    [
      'GH-1 in_progress {"id":"GH-1","status":"in_progress","blocker":null}',
      'GH-1 done {"id":"GH-1","status":"done","blocker":null}',
      'GH-2 in_progress {"id":"GH-2","status":"in_progress","blocker":null}',
      'GH-2 done {"id":"GH-2","status":"done","blocker":null}',
      '',
    ].join('\n'),
  );
  expect(ws.subjects()).toEqual(['[ringmaster] GH-2: write docs', '[ringmaster] GH-1: fix the bug', '[ringmaster] GH-1: changes made before the task started', 'initial']);
});

it('a UTF-8 byte order mark at the start of tasks.jsonl, prd.json or a checklist is read past and kept on write-back', { timeout: 60_000 }, async () => {
  const BOM = '\uFEFF';
  const files = {
    'tasks.jsonl': `${BOM}{"id":"T-1","title":"one"}\n`,
    'prd.json': `${BOM}{"userStories": [{"id": "US-1", "title": "one", "passes": false}]}\n`,
    'TODO.md': `${BOM}- [ ] M-1: one\n`,
  };
  const ws = workspace(files);
  ws.script({ 'T-1': [{ say: COMPLETE }], 'US-1': [{ say: COMPLETE }], 'M-1': [{ say: COMPLETE }] });
  for (const file of Object.keys(files)) {
    const r = await ws.cli(['tasks', 'run', file, '--agent-command', ws.agentCommand, '--json']);
    expect([file, r.code, r.stderr]).toEqual([file, 0, '']);
  }
  expect(ws.read('tasks.jsonl')).toBe(`${BOM}{"id":"T-1","title":"one","status":"done"}\n`);
  expect(ws.read('prd.json')).toBe(`${BOM}{"userStories": [{"id": "US-1", "title": "one", "passes": true}]}\n`);
  expect(ws.read('TODO.md')).toBe(`${BOM}- [x] M-1: one\n`);
});
