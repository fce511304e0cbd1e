// runs, show, stats and logs run in-process against a seeded store: exact output, JSON and exit codes.
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { iterationLogPath, runDir } from '../../src/store/paths.js';
import { openTestStore, testHome } from '../helpers/home.js';
import { until } from '../helpers/until.js';
import { memoryIO } from '../hook/memory-io.js';
import { ended, seedHistory } from './history-seed.js';

let ws: string;
beforeAll(async () => {
  process.env.TZ = 'UTC';
  ws = mkdtempSync(join(tmpdir(), 'rm-history-'));
  await seedHistory(ws);
});
afterAll(() => rmSync(ws, { recursive: true, force: true }));

async function cli(argv: string[], cwd = ws, env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIO(cwd, env);
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe('ringmaster runs', () => {
  it('prints a table newest first; a running run whose owner is dead is orphaned', async () => {
    expect(await cli(['runs'])).toEqual({
      code: 0,
      err: '',
      out: [
        'ID   STATUS     STOP REASON     ITER     COST  STARTED              WHERE',
        `ccc  orphaned   -                  0  $0.0000  2025-01-02 12:15:00  ${ws}`,
        `bbb  stopped    max_iterations     1        ?  2025-01-02 11:15:00  ${ws}`,
        `aaa  completed  success_signal     2  $0.2500  2025-01-02 10:15:00  ${ws}`,
        '',
      ].join('\n'),
    });
  });

  it('prints a JSON array with snake_case fields', async () => {
    const { code, out } = await cli(['runs', '--json', '--limit', '2']);
    expect(code).toBe(0);
    const runs = JSON.parse(out) as Array<Record<string, unknown>>;
    expect(runs.map((r) => [r.id, r.status, r.stored_status, r.stop_reason, r.iterations, r.cost_usd, r.cost_unknown, r.workspace])).toEqual([
      ['ccc', 'orphaned', 'running', null, 0, 0, false, ws],
      ['bbb', 'stopped', 'stopped', 'max_iterations', 1, 0, true, ws],
    ]);
    expect(runs[1]).toEqual({
      id: 'bbb', status: 'stopped', stored_status: 'stopped', stop_reason: 'max_iterations', agent: 'codex', kind: 'prompt', meta: {}, label: null, title: null, model: null,
      limits: { max_iterations: null, max_runtime_ms: null, max_cost_usd: null, failure_threshold: null }, iterations: 1,
      cost_usd: 0, cost_unknown: true, tokens_in: 0, tokens_out: 0, cache_read: 0, cache_write: 0, runtime_ms: 2000,
      workspace: ws, worktree: null, branch: null, created_at: '2025-01-02T11:15:00.000Z', updated_at: '2025-01-02T11:15:02.000Z',
      ended_at: '2025-01-02T11:15:02.000Z', owner_pid: null, owner_host: null, heartbeat_at: null,
    });
  });

  it("lists only this workspace's runs unless --all; explains bad flags", async () => {
    const empty = mkdtempSync(join(tmpdir(), 'rm-empty-'));
    try {
      expect(await cli(['runs'], empty)).toEqual({ code: 0, err: '', out: `no runs in ${empty} (--all lists every workspace's runs)\n` });
      const ids = (out: string): string[] => (JSON.parse(out) as Array<{ id: string }>).map((r) => r.id);
      expect(ids((await cli(['runs', '--all', '--json'], empty)).out)).toEqual(['ccc', 'bbb', 'aaa']);
      expect(ids((await cli(['runs', '--cwd', ws, '--json'], empty)).out)).toEqual(['ccc', 'bbb', 'aaa']);
      expect(await cli(['runs', '--limit', 'x'])).toMatchObject({ code: 64, err: "ringmaster runs: --limit: expected a positive integer, got 'x'\n" });
      expect((await cli(['runs', '--bogus'])).err).toBe("ringmaster runs: Unknown option '--bogus' (see 'ringmaster runs --help')\n");
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('a fresh install (no database yet)', () => {
  it('has no runs and zero figures: runs and stats exit 0 (their JSON too); a run id is not found', async () => {
    const home = join(ws, 'fresh-home');
    const env = { RINGMASTER_HOME: home };
    expect(await cli(['runs'], ws, env)).toEqual({ code: 0, err: '', out: `no runs in ${ws} (--all lists every workspace's runs)\n` });
    expect(await cli(['runs', '--json'], ws, env)).toEqual({ code: 0, err: '', out: '[]\n' });
    const stats = await cli(['stats', '--json'], ws, env);
    expect([stats.code, stats.err, JSON.parse(stats.out)]).toEqual([0, '', { cost_per_run: [], avg_iterations_to_completion: null, completed_runs: 0, cost_by_hour: [], total_cost_usd: 0, total_iterations: 0, cost_per_task: [] }]);
    expect((await cli(['stats', '--run', 'nope'], ws, env)).code).toBe(64);
    expect((await cli(['stats'], ws, env)).out).toBe('runs: 0   iterations: 0   total cost: $0.0000\naverage iterations to completion: none completed yet\n');
  });
});

describe('ringmaster show', () => {
  it('prints the run and its iterations table', async () => {
    expect(await cli(['show', 'aaa'])).toEqual({
      code: 0,
      err: '',
      out: [
        'run aaa: completed (success_signal)',
        'agent: claude',
        `workspace: ${ws}`,
        'started: 2025-01-02 10:15:00   ended: 2025-01-02 10:15:15   runtime: 15.0s',
        'iterations: 2   cost: $0.2500   tokens: 2000 in / 400 out',
        '',
        '#  STATUS    EXIT  DURATION  TOKENS IN  TOKENS OUT     COST  SIGNAL  ERROR',
        '1  failure      0      2.5s       1000         200  $0.1250  -',
        '2  complete     0      2.5s       1000         200  $0.1250  yes',
        '',
        'checkpoints: 2 0123456789ab (committed)',
        '',
      ].join('\n'),
    });
  });

  it('prints {run, iterations, checkpoints} as JSON, finding the run by prefix', async () => {
    const { code, out } = await cli(['show', 'bb', '--json']);
    expect(code).toBe(0);
    const shown = JSON.parse(out) as { run: Record<string, unknown>; iterations: unknown[]; checkpoints: unknown[] };
    expect(shown.run).toMatchObject({ id: 'bbb', status: 'stopped', stop_reason: 'max_iterations', iterations: 1, spec: {}, last_iteration: 1, duration_ms: 1000 });
    expect(shown.iterations).toEqual([
      {
        number: 1, status: 'failure', exit_code: 1, exit_signal: null, duration_ms: 1000, tokens_in: null, tokens_out: null, cache_read: 0, cache_write: 0,
        cost_usd: null, completion_signal_found: false, failure_signal_found: false, error_kind: 'exit_nonzero', error_message: 'exit code 1',
        session_id: null, model: null, agent: 'codex', started_at: '2025-01-02T11:15:00.000Z', completed_at: '2025-01-02T11:15:01.000Z', log_path: null,
        unit_id: null, files_changed: null, files_changed_total: null, tree_before: null, tree_after: null, discarded_ref: null, verify: null,
      },
    ]);
    expect(shown.checkpoints).toEqual([]);
  });

  it('names an unknown run and a missing id', async () => {
    expect(await cli(['show', 'zzz'])).toEqual({ code: 64, out: '', err: `ringmaster show: no run 'zzz' (see 'ringmaster runs --all')\n` });
    expect(await cli(['show'])).toEqual({ code: 64, out: '', err: "ringmaster show: missing run id (see 'ringmaster show --help')\n" });
  });
});

describe('ringmaster stats', () => {
  it('prints cost per run, average iterations to completion and cost by hour', async () => {
    expect(await cli(['stats'])).toEqual({
      code: 0,
      err: '',
      out: [
        'runs: 3   iterations: 3   total cost: >=$0.2500',
        'average iterations to completion: 2.0 (1 completed runs)',
        '',
        'cost per run:',
        'RUN  STATUS     ITER     COST',
        'ccc  running       0  $0.0000',
        'bbb  stopped       1        ?',
        'aaa  completed     2  $0.2500',
        '',
        'cost by hour:',
        'HOUR              ITER     COST',
        '2025-01-02 10:00     2  $0.2500',
        '2025-01-02 11:00     1        ?',
        '',
      ].join('\n'),
    });
  });

  it('prints JSON, optionally for one run', async () => {
    const all = JSON.parse((await cli(['stats', '--json'])).out) as Record<string, unknown>;
    expect(all).toMatchObject({
      avg_iterations_to_completion: 2, completed_runs: 1, total_cost_usd: 0.25, total_iterations: 3,
      cost_by_hour: [
        { hour: '2025-01-02T10:00:00.000Z', iterations: 2, cost_usd: 0.25, cost_unknown: false },
        { hour: '2025-01-02T11:00:00.000Z', iterations: 1, cost_usd: 0, cost_unknown: true },
      ],
    });
    const one = JSON.parse((await cli(['stats', '--json', '--run', 'aaa'])).out) as Record<string, unknown>;
    expect(one.cost_per_run).toEqual([{ run_id: 'aaa', status: 'completed', iterations: 2, cost_usd: 0.25, cost_unknown: false }]);
  });
});

describe('ringmaster logs', () => {
  it('prints every iteration after a header, or one iteration, or JSON lines', async () => {
    expect(await cli(['logs', 'aaa'])).toEqual({
      code: 0,
      err: '',
      out: '==> iteration 1 (failure) <==\nworking on it\nnot done\n==> iteration 2 (complete) <==\nall done\n<promise>COMPLETE</promise>\n',
    });
    expect((await cli(['logs', 'aaa', '--iteration', '1'])).out).toBe('working on it\nnot done\n');
    expect((await cli(['logs', 'aaa', '--iteration', '2', '--json'])).out).toBe(
      '{"iteration":2,"line":"all done"}\n{"iteration":2,"line":"<promise>COMPLETE</promise>"}\n',
    );
    expect(await cli(['logs', 'aaa', '--iteration', '7'])).toEqual({ code: 64, out: '', err: 'ringmaster logs: run aaa has no iteration 7\n' });
  });

  it('--follow prints output as it is written until the run ends', async () => {
    const store = await openTestStore();
    const owner = { pid: process.pid, host: hostname() };
    const now = Date.now();
    try {
      await store.createRun({ id: 'live', agent: 'claude', spec: {}, workspace: ws, owner, now });
      mkdirSync(runDir(testHome(), 'live'), { recursive: true });
      const log1 = iterationLogPath(testHome(), 'live', 1);
      writeFileSync(log1, 'first line\n');
      await store.startIteration({ run_id: 'live', number: 1, agent: 'claude', started_at: now, log_path: log1 });
      const io = memoryIO(ws);
      const following = main(['logs', 'live', '--follow', '--json'], io);
      await until('first line', () => io.out().includes('first line'));
      appendFileSync(log1, 'second ');
      appendFileSync(log1, 'line\n');
      await until('second line', () => io.out().includes('second line'));
      await store.completeIteration('live', 1, ended(now + 1));
      const log2 = iterationLogPath(testHome(), 'live', 2);
      writeFileSync(log2, 'iteration two\n');
      await store.startIteration({ run_id: 'live', number: 2, agent: 'claude', started_at: now + 2, log_path: log2 });
      await until('iteration two', () => io.out().includes('iteration two'));
      appendFileSync(log2, 'no newline at the end');
      await store.completeIteration('live', 2, ended(now + 3, { status: 'complete', completion_signal_found: true }));
      await store.finishRun('live', { status: 'completed', stop_reason: 'success_signal', now: now + 4 });
      expect(await following).toBe(0);
      expect(io.err()).toBe('');
      expect(io.out()).toBe(
        [
          '{"iteration":1,"line":"first line"}',
          '{"iteration":1,"line":"second line"}',
          '{"iteration":2,"line":"iteration two"}',
          '{"iteration":2,"line":"no newline at the end"}',
          '',
        ].join('\n'),
      );
    } finally {
      await store.close();
    }
  });
});

