// `ringmaster tasks`, `tasks next`, `tasks show ID` through the built CLI: exact output, JSON, exit codes.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli, useWorkspace } from '../helpers/cli.js';

const ws = useWorkspace('unused\n');

const TASKS = [
  '{"id":"RALPH-001","title":"Write the schema","status":"done","priority":3,"createdAt":"2025-01-01T00:00:00Z"}',
  '{"id":"RALPH-002","title":"Parse the file","status":"blocked","blocker":"max_iterations: 10 iterations used (limit 10)","priority":2,"createdAt":"2025-01-02T00:00:00Z"}',
  '{"id":"RALPH-003","title":"Validate","priority":2,"createdAt":"2025-01-03T00:00:00Z","completion":{"type":"test","command":"npm test -- --grep RALPH-003"},"acceptance":["rejects bad input"],"limits":{"max_iterations":3}}',
  '{"id":"RALPH-004","title":"Report errors","priority":5,"createdAt":"2025-01-04T00:00:00Z","dependsOn":["RALPH-003"]}',
  '{"id":"RALPH-005","title":"Docs","priority":1,"createdAt":"2025-01-01T00:00:00Z"}',
].join('\n') + '\n';

const PROGRESS = [
  '{"time":"2025-01-05T00:00:00.000Z","run_id":"r1","task_id":"RALPH-001","event":"iteration","iteration":1,"run_iteration":1,"outcome":"success","result":"continue: draft","note":null,"duration_ms":1000,"cost_usd":0.25,"check":null}',
  '{"time":"2025-01-05T00:00:00.000Z","run_id":"r1","task_id":"RALPH-001","event":"iteration","iteration":2,"run_iteration":2,"outcome":"complete","result":"complete","note":null,"duration_ms":1000,"cost_usd":0.17,"check":null}',
].join('\n') + '\n';

function setup(): void {
  writeFileSync(join(ws.dir, 'tasks.jsonl'), TASKS);
  writeFileSync(join(ws.dir, 'progress.jsonl'), PROGRESS);
}

const run = (args: string[]) => runCli(args, { cwd: ws.dir, env: cleanEnv() });

describe('ringmaster tasks', () => {
  it('lists every task with status, priority, iterations and cost', async () => {
    setup();
    const r = await run(['tasks']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`tasks.jsonl: 5 tasks (1 done, 1 blocked, 3 pending)

ID         STATUS   PRIORITY  ITER     COST  TITLE
RALPH-001  done            3     2  $0.4200  Write the schema
RALPH-002  blocked         2     0        -  Parse the file (blocked: max_iterations: 10 iterations used (limit 10))
RALPH-003  pending         2     0        -  Validate
RALPH-004  pending         5     0        -  Report errors
RALPH-005  pending         1     0        -  Docs
`);
    // Reading never writes.
    expect(readFileSync(join(ws.dir, 'tasks.jsonl'), 'utf8')).toBe(TASKS);
  });

  it('next: the task that would run and why each other one would not', async () => {
    setup();
    const r = await run(['tasks', 'next']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`next: RALPH-003 Validate (priority 2: the highest of the tasks that can run)

not next:
  RALPH-001  done
  RALPH-002  blocked: max_iterations: 10 iterations used (limit 10)
  RALPH-004  waits for RALPH-003 (pending)
  RALPH-005  priority 1, RALPH-003 has priority 3 (higher priority runs first)
`.replace('RALPH-003 has priority 3', 'RALPH-003 has priority 2'));
    const json = await run(['tasks', 'next', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      source: { kind: 'jsonl', name: 'tasks.jsonl', path: join(ws.dir, 'tasks.jsonl'), priority_order: 'higher_first' },
      next: { id: 'RALPH-003', title: 'Validate', reason: 'priority 2: the highest of the tasks that can run' },
      others: [{ id: 'RALPH-001', status: 'done', reason: 'done' }, { id: 'RALPH-002' }, { id: 'RALPH-004' }, { id: 'RALPH-005' }],
    });
  });

  it('show ID: fields, completion, limits (the task own or the defaults), progress', async () => {
    setup();
    const done = await run(['tasks', 'show', 'RALPH-001']);
    expect(done.stdout).toBe(`RALPH-001: Write the schema
status: done
priority: 3   created: 2025-01-01T00:00:00Z   file: tasks.jsonl line 1
depends on: -
completion: the agent signals completion
limits: 10 iterations, 30m, $5 (defaults)
iterations: 2   cost: $0.4200

progress:
  - iteration 1: success — continue: draft
  - iteration 2: complete
`);
    const validate = await run(['tasks', 'show', 'RALPH-003', '--json']);
    expect(JSON.parse(validate.stdout)).toMatchObject({
      task: {
        id: 'RALPH-003',
        completion: { type: 'test', command: 'npm test -- --grep RALPH-003', timeoutMs: null },
        limits: { max_iterations: 3, max_runtime_ms: 1_800_000, max_cost_usd: 5 },
        acceptance: ['rejects bad input'],
        iterations: 0,
        cost_usd: null,
        line: 3,
      },
      progress: [],
    });
  });

  it('errors: unknown task, bad file (file, line, field), no task file, bad arguments', async () => {
    setup();
    const unknown = await run(['tasks', 'show', 'NOPE']);
    expect([unknown.code, unknown.stderr]).toEqual([64, "ringmaster tasks: no task 'NOPE' in tasks.jsonl (see 'ringmaster tasks')\n"]);
    writeFileSync(join(ws.dir, 'tasks.jsonl'), `${TASKS}{"id":"RALPH-006","title":"x","priority":"high"}\n`);
    const bad = await run(['tasks']);
    expect([bad.code, bad.stderr]).toEqual([64, 'ringmaster tasks: tasks.jsonl: line 6: priority: Invalid input: expected number, received string\n']);
    const missing = await run(['tasks', '--file', 'missing.md']);
    expect([missing.code, missing.stderr]).toEqual([64, 'ringmaster tasks: missing.md: file not found\n']);
    mkdirSync(join(ws.dir, 'empty'));
    const none = await run(['tasks', 'next', '--cwd', 'empty']);
    expect([none.code, none.stderr]).toEqual([64, `ringmaster tasks: no task file in ${join(ws.dir, 'empty')}: expected one of tasks.jsonl, prd.json, TODO.md (or name one, or set tasks.file or tasks.command in ringmaster.yml)\n`]);
    const extra = await run(['tasks', 'show']);
    expect([extra.code, extra.stderr]).toEqual([64, "ringmaster tasks: missing task id (see 'ringmaster tasks --help')\n"]);
  });

  it('reads prd.json and a markdown checklist the same way (--file)', async () => {
    writeFileSync(join(ws.dir, 'prd.json'), JSON.stringify({ userStories: [{ id: 'US-1', title: 'Login', priority: 2, passes: false }, { id: 'US-2', title: 'Logout', priority: 1, passes: false }] }, null, 2));
    const prd = await run(['tasks', 'next']);
    expect(prd.stdout.split('\n')[0]).toBe('next: US-2 Logout (priority 1: the highest of the tasks that can run)');
    writeFileSync(join(ws.dir, 'TODO.md'), '# Plan\n- [x] Set up\n- [ ] Build it\n');
    const md = await run(['tasks', '--file', 'TODO.md']);
    expect(md.stdout).toBe(`TODO.md: 2 tasks (1 done, 1 pending)

ID        STATUS   PRIORITY  ITER  COST  TITLE
set-up    done            -     0     -  Set up
build-it  pending         -     0     -  Build it
`);
  });

  it('tasks run --dry-run prints the agent command and the first task\'s prompt; bad arguments are usage errors', async () => {
    setup();
    const dry = await run(['tasks', 'run', '--dry-run', '--agent-command', 'my-agent --fast', '--context', 'Use TypeScript.']);
    expect(dry.stderr).toBe('');
    expect(dry.code).toBe(0);
    const [procedure, command, blank, title] = dry.stdout.split('\n');
    expect([procedure, command, blank, title]).toEqual(['[DRY RUN] Procedure: tasks.jsonl', '[DRY RUN] Would execute with: my-agent --fast', '', '# Task RALPH-003: Validate']);
    expect(dry.stdout).toContain('(iteration 1 of at most 3 on this task)');
    expect(dry.stdout).toContain('## Instructions\nUse TypeScript.\n');
    expect(dry.stdout).toContain('## Acceptance criteria\n- rejects bad input\n');
    const extra = await run(['tasks', 'run', 'tasks.jsonl', 'more']);
    expect([extra.code, extra.stderr]).toEqual([64, "ringmaster tasks: unexpected argument 'more' (see 'ringmaster tasks --help')\n"]);
    const flag = await run(['tasks', 'run', '--bogus']);
    expect([flag.code, flag.stderr]).toEqual([64, "ringmaster tasks: Unknown option '--bogus' (see 'ringmaster tasks --help')\n"]);
    writeFileSync(join(ws.dir, 'done.jsonl'), '{"id":"X","title":"x","status":"done"}\n');
    const nothing = await run(['tasks', 'run', 'done.jsonl', '--dry-run']);
    expect([nothing.code, nothing.stderr]).toEqual([64, 'ringmaster tasks: no task to run: every task is done\n']);
  });
});

describe('a dependency cycle', () => {
  it('is named, with the file and line, by tasks, tasks next and tasks run (exit 64); a task depending on itself too', async () => {
    writeFileSync(join(ws.dir, 'tasks.jsonl'), '{"id":"Z","title":"z"}\n{"id":"A","title":"a","dependsOn":["C"]}\n{"id":"B","title":"b","dependsOn":["A"]}\n{"id":"C","title":"c","dependsOn":["B"]}\n');
    const said = 'tasks.jsonl: line 2: dependsOn: dependency cycle: A → C → B → A (none of them can ever start: remove one of these dependencies)\n';
    for (const [args, command] of [[['tasks'], 'tasks'], [['tasks', 'next'], 'tasks'], [['tasks', 'run', '--agent-command', 'true'], 'tasks']] as const) {
      const r = await run([...args]);
      expect([r.code, r.stdout, r.stderr]).toEqual([64, '', `ringmaster ${command}: ${said}`]);
    }
    writeFileSync(join(ws.dir, 'prd.json'), JSON.stringify({ userStories: [{ id: 'US-1', title: 'one', passes: false, dependsOn: ['US-1'] }] }));
    const self = await run(['tasks', 'next', '--file', 'prd.json']);
    expect([self.code, self.stderr]).toEqual([64, 'ringmaster tasks: prd.json: line 1: dependsOn: dependency cycle: US-1 → US-1 (a task cannot depend on itself)\n']);
  });
});
