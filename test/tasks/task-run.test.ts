// `ringmaster tasks run` end to end through the built CLI with the scripted task agent: selection order
// (in progress, priorities, dates, dependencies), one commit per task, the tracker written back, every
// completion type, the verify gate turning a false "done" into a failed iteration, the progress lines.
import { describe, expect, it } from 'vitest';
import { normalise } from '../helpers/cli.js';
import { events, iterations, ofType, tasksJsonl, useTaskWorkspaces } from './task-run-harness.js';

const workspace = useTaskWorkspaces();
const COMPLETE = '<promise>COMPLETE</promise>';

describe('selection and commits', () => {
  it('runs in progress first, then by priority, then oldest, dependencies first; one commit per task', { timeout: 60_000 }, async () => {
    const ws = workspace({
      'tasks.jsonl': tasksJsonl(
        { id: 'T-1', title: 'low priority', priority: 1, createdAt: '2025-01-01' },
        { id: 'T-2', title: 'high, newer', priority: 5, createdAt: '2025-01-03' },
        { id: 'T-3', title: 'high, older', priority: 5, createdAt: '2025-01-02' },
        { id: 'T-4', title: 'highest, waits for T-3', priority: 9, dependsOn: ['T-3'] },
        { id: 'T-5', title: 'already done', priority: 10, status: 'done' },
        { id: 'T-6', title: 'in progress', priority: 0, status: 'in_progress' },
      ),
    });
    ws.script(Object.fromEntries(['T-1', 'T-2', 'T-3', 'T-4', 'T-6'].map((id) => [id, [{ write: { [`${id}.txt`]: `${id}\n` }, say: `done ${COMPLETE}` }]])));
    const r = await ws.cli(['tasks', 'run', '--agent-command', ws.agentCommand, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const all = events(r.stdout);
    expect(ofType(all, 'warning').map((e) => e.message)).toEqual(["agent 'command' reports no cost: max_cost ($50) cannot be enforced"]);
    expect(ofType(all, 'task_started').map((e) => [e.task_id, e.tasks_started, e.max_tasks, e.resumed])).toEqual([
      ['T-6', 1, 50, false], ['T-3', 2, 50, false], ['T-4', 3, 50, false], ['T-2', 4, 50, false], ['T-1', 5, 50, false],
    ]);
    expect(iterations(all)).toEqual([
      [1, 'T-6', 1, 'complete', 'none'], [2, 'T-3', 1, 'complete', 'none'], [3, 'T-4', 1, 'complete', 'none'], [4, 'T-2', 1, 'complete', 'none'], [5, 'T-1', 1, 'complete', 'none'],
    ]);
    expect(all.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', stop_reason: 'success_signal', iterations: 5, message: 'every task is done (5 done and 0 blocked by this run)' });
    expect(ws.subjects()).toEqual([
      '[ringmaster] T-1: low priority', '[ringmaster] T-2: high, newer', '[ringmaster] T-4: highest, waits for T-3', '[ringmaster] T-3: high, older', '[ringmaster] T-6: in progress', 'initial',
    ]);
    // Each commit holds the task's work with the tracker and the journals.
    const { sh } = await import('../git/git-repo.js');
    expect(sh(ws.dir, ['show', '--name-only', '--format=', 'HEAD~2']).trim().split('\n').sort()).toEqual(['T-4.txt', 'learning.jsonl', 'progress.jsonl', 'tasks.jsonl']);
    const commits = ofType(all, 'task_completed').map((e) => e.commit_sha);
    expect(commits).toEqual(sh(ws.dir, ['log', '--format=%H', '-5']).trim().split('\n').reverse());
    expect(ws.read('tasks.jsonl')).toBe(
      tasksJsonl(
        { id: 'T-1', title: 'low priority', priority: 1, createdAt: '2025-01-01', status: 'done' },
        { id: 'T-2', title: 'high, newer', priority: 5, createdAt: '2025-01-03', status: 'done' },
        { id: 'T-3', title: 'high, older', priority: 5, createdAt: '2025-01-02', status: 'done' },
        { id: 'T-4', title: 'highest, waits for T-3', priority: 9, dependsOn: ['T-3'], status: 'done' },
        { id: 'T-5', title: 'already done', priority: 10, status: 'done' },
        { id: 'T-6', title: 'in progress', priority: 0, status: 'done' },
      ),
    );
    expect(ws.calls().map((c) => [c.task, c.iteration, c.cwd])).toEqual(['T-6', 'T-3', 'T-4', 'T-2', 'T-1'].map((t) => [t, 1, ws.dir]));
    const show = JSON.parse((await ws.cli(['show', all[0]?.run_id ?? '', '--json'])).stdout) as { run: { kind: string; meta: Record<string, unknown> }; iterations: Array<{ unit_id: string | null }> };
    expect(show.run.kind).toBe('tasks');
    expect(show.run.meta).toMatchObject({ current: null, done: ['T-6', 'T-3', 'T-4', 'T-2', 'T-1'], blocked: [], tasks_started: 5, source: { type: 'file', path: `${ws.dir}/tasks.jsonl` } });
    expect(show.iterations.map((i) => i.unit_id)).toEqual(['T-6', 'T-3', 'T-4', 'T-2', 'T-1']);
  });

  it('prints which task and which of its iterations runs; the final line tells the tally', { timeout: 60_000 }, async () => {
    const ws = workspace({ 'tasks.jsonl': tasksJsonl({ id: 'A', title: 'write a', completion: { type: 'file_exists', path: 'a.txt' } }) });
    ws.script({ A: [{ say: `done ${COMPLETE}` }, { write: { 'a.txt': 'a\n' }, say: 'wrote it' }] });
    const r = await ws.cli(['tasks', 'run', '--agent-command', ws.agentCommand]);
    expect(r.code).toBe(0);
    const commit = ws.subjects().length === 2 ? (await import('../git/git-repo.js')).sh(ws.dir, ['rev-parse', '--short=7', 'HEAD']).trim() : '?';
    expect(normalise(r.stdout).replace(/\(\d+\.\d+s, /, '(Xs, ')).toBe(
      [
        '[T] Starting task run: tasks.jsonl',
        '[T] Starting task A: write a (task 1 of at most 50)',
        '[T] Iteration 1 (task A 1/10) starting...',
        '[T] Iteration 1 (task A 1/10) completed in Xs (failure, consecutive: 1/3)',
        '  reason: claimed complete, but a.txt does not exist',
        '  check failed: a.txt does not exist',
        '  anomaly (stalled): iteration 1 changed no file in the workspace',
        '[T] Iteration 2 (task A 2/10) starting...',
        '[T] Iteration 2 (task A 2/10) completed in Xs (complete)',
        '  check passed: a.txt exists',
        `[T] Task A done in 2 iterations (Xs, cost unknown, commit ${commit})`,
        '[T] Every task is done (1 done and 0 blocked by this run) (2 iterations completed, total: X)',
        '',
      ].join('\n'),
    );
  });
});

describe('completion types and the verify gate', () => {
  it('signal, test command, file_exists and validation script; a false "done" is a failed iteration with the check output fed back', { timeout: 90_000 }, async () => {
    const ws = workspace({
      'tasks.jsonl': tasksJsonl(
        { id: 'S', title: 'signal', priority: 4 },
        { id: 'T', title: 'test command', priority: 3, completion: { type: 'test', command: 'test -f t.txt' } },
        { id: 'F', title: 'file exists', priority: 2, completion: { type: 'file_exists', path: 'out/f.md' } },
        { id: 'V', title: 'validated', priority: 1, completion: { type: 'validate', script: 'validate.mjs' }, acceptance: ['v.txt says valid'] },
      ),
      'validate.mjs': "import { readFileSync } from 'node:fs';\nconst text = readFileSync('v.txt', 'utf8');\nif (text.trim() !== 'valid') { console.log(`v.txt says ${text.trim()}, expected valid`); process.exit(1); }\n",
    });
    ws.script({
      S: [{ say: `<ringmaster-result>{"status":"complete","artifacts":[],"learnings":["signals work"]}</ringmaster-result>` }],
      // No claim: the passing test completes the task anyway.
      T: [{ write: { 't.txt': 't\n' }, say: 'wrote t.txt' }],
      F: [{ say: '<ringmaster-result>{"status":"continue","reason":"the file comes next"}</ringmaster-result>' }, { write: { 'out/f.md': '# f\n' }, say: `${COMPLETE}` }],
      V: [{ write: { 'v.txt': 'invalid\n' }, say: `done ${COMPLETE}` }, { write: { 'v.txt': 'valid\n' }, say: `done ${COMPLETE}` }],
    });
    const r = await ws.cli(['tasks', 'run', '--agent-command', ws.agentCommand, '--json']);
    expect(r.code).toBe(0);
    const all = events(r.stdout);
    expect(iterations(all)).toEqual([
      [1, 'S', 1, 'complete', 'none'],
      [2, 'T', 1, 'complete', 'none'],
      [3, 'F', 1, 'success', 'none'],
      [4, 'F', 2, 'complete', 'none'],
      [5, 'V', 1, 'failure', 'verify_failed'],
      [6, 'V', 2, 'complete', 'none'],
    ]);
    expect(ofType(all, 'task_check').map((e) => [e.iteration, e.task_id, e.check_type, e.passed, e.summary])).toEqual([
      [2, 'T', 'test', true, "test command 'test -f t.txt' exited 0"],
      [3, 'F', 'file_exists', false, 'out/f.md does not exist'],
      [4, 'F', 'file_exists', true, 'out/f.md exists'],
      [5, 'V', 'validate', false, 'validation script validate.mjs exited 1'],
      [6, 'V', 'validate', true, 'validation script validate.mjs exited 0'],
    ]);
    // The claim does not count: the iteration is recorded without a completion.
    expect(ofType(all, 'iteration_completed')[4]).toMatchObject({ error_message: 'claimed complete, but validation script validate.mjs exited 1', completion_signal_found: false });
    // The next iteration is told what the check said.
    const second = ws.prompt('V', 2);
    expect(second).toContain('## The last check failed\nvalidation script validate.mjs exited 1. The end of its output:\n```\nv.txt says invalid, expected valid\n```\n');
    expect(second).toContain('## Progress so far on this task\n- iteration 1: failure — signal — claimed complete, but validation script validate.mjs exited 1\n');
    expect(second).toContain('## Acceptance criteria\n- v.txt says valid\n');
    expect(second).toContain('## Learnings from earlier tasks\n- S (signal): done in 1 iteration. learned: signals work\n');
    expect(ws.prompt('F', 2)).toContain('- iteration 1: continue: the file comes next — out/f.md does not exist\n');
    const learning = ws.jsonl('learning.jsonl');
    expect(learning.map((l) => [l.task_id, l.status, l.iterations, l.failure_reasons, l.learnings])).toEqual([
      ['S', 'done', 1, [], ['signals work']],
      ['T', 'done', 1, [], []],
      ['F', 'done', 2, [], []],
      ['V', 'done', 2, ['claimed complete, but validation script validate.mjs exited 1'], []],
    ]);
    expect(learning[3]?.failed_checks).toEqual([{ type: 'validate', passed: false, summary: 'validation script validate.mjs exited 1' }]);
    const progress = ws.jsonl('progress.jsonl');
    expect(progress.map((p) => [p.task_id, p.event, p.outcome ?? null])).toEqual([
      ['S', 'task_started', null], ['S', 'iteration', 'complete'], ['S', 'task_completed', null],
      ['T', 'task_started', null], ['T', 'iteration', 'complete'], ['T', 'task_completed', null],
      ['F', 'task_started', null], ['F', 'iteration', 'continue'], ['F', 'iteration', 'complete'], ['F', 'task_completed', null],
      ['V', 'task_started', null], ['V', 'iteration', 'failure'], ['V', 'iteration', 'complete'], ['V', 'task_completed', null],
    ]);
    expect(progress[11]).toMatchObject({ iteration: 1, run_iteration: 5, result: 'signal', note: 'claimed complete, but validation script validate.mjs exited 1', check: { type: 'validate', passed: false, summary: 'validation script validate.mjs exited 1' }, cost_usd: null });
    expect(ws.subjects()).toEqual(['[ringmaster] V: validated', '[ringmaster] F: file exists', '[ringmaster] T: test command', '[ringmaster] S: signal', 'initial']);
  });
});
