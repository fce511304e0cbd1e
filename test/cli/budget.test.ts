// The shared budget through the CLI (README "Budget"): a fake `claude` (test/fixtures/bin-claude-budget) that
// reports $0.02 per iteration, a daily budget of $0.05, runs in separate workspaces of one store. They never
// spend more than the budget plus one iteration per running agent, wait (reason budget), a run created then
// starts no iteration, a kill -9 while waiting resumes waiting, and raising the budget lets every run go on.
// Needs `npm run build`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readBudgetReport } from '../../src/store/budget.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { existsSync } from 'node:fs';
import type { RunEvent } from '../../src/runner/events.js';
import { findTagged, runTagMatcher } from '../../src/os/process-tag.js';
import { cleanEnv, fakeBin, ROOT, runCli, startCli, tempDir, type CliResult } from '../helpers/cli.js';
import { until } from '../helpers/until.js';
import { startFakeHttp } from '../fakes/fake-http.js';
import type { Notification } from '../../src/notify/payload.js';

const FAKE_BIN = join(ROOT, 'test', 'fixtures', 'bin-claude-budget');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function workspace(): string {
  const { dir } = tempDir('ringmaster-budget-');
  dirs.push(dir);
  return dir;
}

/** The last `waiting` event of a run with no iteration started after it, or null. */
async function waitingFor(store: Store, runId: string): Promise<{ reason: string; until: number } | null> {
  const events = await store.listEvents(runId);
  const last = events.filter((e) => e.type === 'waiting' || e.type === 'iteration_started').at(-1);
  if (last?.type !== 'waiting') return null;
  return last.payload as { reason: string; until: number };
}

const runArgs = (max: number): string[] => ['run', '--prompt', 'work', '--agent', 'claude', '--max-iterations', String(max), '--checkpoint-interval', '0', '--json'];

describe('ringmaster budget', () => {
  it('holds runs of every workspace to one daily budget: they wait, a new run starts nothing, a kill -9 resumes waiting, a raise lets them finish', async () => {
    const home = mkdtempSync(join(tmpdir(), 'ringmaster-budget-home-'));
    dirs.push(home);
    const env = cleanEnv({ RINGMASTER_HOME: home, PATH: `${FAKE_BIN}:${process.env.PATH ?? ''}`, RINGMASTER_LOOP_BUDGET_POLL: '50ms' });
    const set = await runCli(['budget', 'set', '--daily', '0.05'], { cwd: home, env });
    expect(set.stderr).toBe('');
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(/^today: \$0\.00 of \$0\.05 \(projected \$0\.00 at this pace; resets \d{4}-\d\d-\d\dT00:00:00\.000Z\)\nthis month: \$0\.00 no limit/);

    const a = startCli(runArgs(10), { cwd: workspace(), env });
    const b = startCli(runArgs(10), { cwd: workspace(), env });
    const store = await openStore({ env: { RINGMASTER_HOME: home } });
    try {
      const both = await until('both runs waiting for the budget', async () => {
        const runs = await store.listRuns();
        if (runs.length !== 2 || runs.some((r) => r.status !== 'waiting')) return null;
        const waits = await Promise.all(runs.map((r) => waitingFor(store, r.id)));
        return waits.every((w) => w?.reason === 'budget') ? runs : null;
      });
      const report = await readBudgetReport(store, Date.now());
      // At most one iteration per running agent past the budget: 0.05 + 2 x 0.02.
      expect(report.daily.spent_usd).toBeGreaterThanOrEqual(0.05);
      expect(report.daily.spent_usd).toBeLessThanOrEqual(0.09);
      expect(report.reached?.window).toBe('daily');
      // Each finished iteration cost $0.02; one the budget cut short (the other run's spend reached it while it
      // worked) ended with error kind budget, its few tokens priced, and uses no iteration of the limit.
      // (How far the cut one got before it was stopped is timing: its cost is only bounded by the total.)
      const finished = async (runId: string): Promise<number> => (await store.listIterations(runId)).filter((i) => i.error_kind !== 'budget').length;
      const rows = (await Promise.all(both.map((r) => store.listIterations(r.id)))).flat();
      const paid = rows.filter((i) => i.error_kind !== 'budget');
      for (const row of paid) expect(row.cost_usd).toBeCloseTo(0.02, 6);
      // $0.04 is under the budget: a third iteration at least started (it may be the one cut short).
      expect(paid.length).toBeGreaterThanOrEqual(2);
      expect(paid.length * 0.02).toBeLessThanOrEqual(report.daily.spent_usd + 1e-9);

      // A run created while the budget is spent waits before its first iteration; killed -9, resumed, it waits again.
      const third = workspace();
      const c = startCli(runArgs(2), { cwd: third, env });
      const cRun = await until('the third run waiting', async () => {
        const run = (await store.listRuns()).find((r) => r.workspace.endsWith(third.split('/').at(-1) ?? '?'));
        return run && (await waitingFor(store, run.id))?.reason === 'budget' ? run : null;
      });
      expect(cRun.totals.iterations).toBe(0);
      c.child.kill('SIGKILL');
      await c.done;
      const resumed = startCli(['resume', cRun.id, '--json'], { cwd: third, env });
      await until('the resumed run waiting again', async () => {
        const events = await store.listEvents(cRun.id);
        return events.filter((e) => e.type === 'waiting').length >= 2 && (await waitingFor(store, cRun.id)) !== null;
      });
      expect(await store.listIterations(cRun.id)).toEqual([]);

      const shown = await runCli(['budget', '--json'], { cwd: home, env });
      const json = JSON.parse(shown.stdout) as { daily: { limit_usd: number; spent_usd: number }; by_run: unknown[]; unpriced: unknown[] };
      expect(json.daily).toMatchObject({ limit_usd: 0.05, spent_usd: report.daily.spent_usd });
      // Every run that spent is listed (both, unless one reached the budget alone before the other's first iteration).
      const spenders = new Set(rows.filter((i) => (i.cost_usd ?? 0) > 0).map((i) => i.run_id));
      expect(json.by_run).toHaveLength(spenders.size);
      expect(spenders.size).toBeGreaterThanOrEqual(1);
      expect(json.unpriced).toEqual([]);

      const raise = await runCli(['budget', 'set', '--daily', '1'], { cwd: home, env });
      expect(raise.code).toBe(0);
      const results: CliResult[] = await Promise.all([a.done, b.done, resumed.done]);
      for (const r of results) expect(r.code, r.stderr).toBe(2);
      const runs = await store.listRuns();
      expect((await Promise.all(runs.map(async (r) => [r.status, r.stop_reason, await finished(r.id)]))).sort()).toEqual([
        ['completed', 'max_iterations', 10],
        ['completed', 'max_iterations', 10],
        ['completed', 'max_iterations', 2],
      ]);
      // 22 paid iterations, plus what an iteration the budget cut short had reported before it was stopped.
      const cut = (await Promise.all(runs.map((r) => store.listIterations(r.id)))).flat().filter((i) => i.error_kind === 'budget');
      const cutCost = cut.reduce((sum, i) => sum + (i.cost_usd ?? 0), 0);
      expect((await readBudgetReport(store, Date.now())).daily.spent_usd).toBeCloseTo(0.44 + cutCost, 3);
    } finally {
      await store.close();
      for (const p of [a, b]) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    }
  }, 60_000);

  it('stops an agent that reaches the budget while it works, as max_cost does; the run waits and notifies 100% once, a raise lets it finish', async () => {
    const home = mkdtempSync(join(tmpdir(), 'ringmaster-budget-home-'));
    dirs.push(home);
    const ws = workspace();
    // The first turn reports $1.20 of tokens (claude-opus-5-5: 300,000 input tokens) early, then works on for 30 s;
    // the next one ends at once and claims completion.
    const bin = fakeBin(
      home,
      'claude',
      `#!/bin/sh
cat >/dev/null
n=$(cat .fake-count 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > .fake-count
echo '{"type":"system","subtype":"init","session_id":"s'$n'","model":"claude-opus-5-5"}'
if [ "$n" -eq 1 ]; then
  echo '{"type":"assistant","message":{"id":"m1","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"reading"}],"usage":{"input_tokens":300000,"output_tokens":0}},"session_id":"s1"}'
  sleep 30
  echo late > late-1.txt
fi
echo '{"type":"result","subtype":"success","is_error":false,"session_id":"s'$n'","total_cost_usd":0.01,"usage":{"input_tokens":10,"output_tokens":0},"result":"<promise>COMPLETE</promise>"}'
`,
    );
    const received: Notification[] = [];
    const hook = await startFakeHttp((_req, res, body) => {
      received.push(JSON.parse(body) as Notification);
      res.writeHead(200).end('ok');
      return Promise.resolve();
    });
    const env = cleanEnv({ RINGMASTER_HOME: home, PATH: `${bin}:${process.env.PATH ?? ''}`, RINGMASTER_LOOP_BUDGET_POLL: '50ms', RINGMASTER_NOTIFY_WEBHOOKS: `json=${hook.url}/hook` });
    expect((await runCli(['budget', 'set', '--daily', '1'], { cwd: home, env })).code).toBe(0);
    const run = startCli(runArgs(5), { cwd: ws, env });
    const store = await openStore({ env: { RINGMASTER_HOME: home } });
    try {
      const held = await until('the run waiting for the budget', async () => {
        const [r] = await store.listRuns();
        return r?.status === 'waiting' && (await waitingFor(store, r.id))?.reason === 'budget' ? r : null;
      });
      const [first] = await store.listIterations(held.id);
      expect([first?.status, first?.error_kind, first?.error_message, first?.cost_usd]).toEqual(['waiting', 'budget', 'the shared budget was reached while the agent worked: agent stopped', 1.2]);
      // Stopped where it was: the rest of its turn never happened, nothing of it is left.
      expect(existsSync(join(ws, 'late-1.txt'))).toBe(false);
      expect(findTagged(runTagMatcher(held.id))).toEqual([]);
      expect((await runCli(['budget', 'set', '--daily', '10'], { cwd: home, env })).code).toBe(0);
      const r = await run.done;
      expect(r.code, r.stderr).toBe(0);
      const events = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as RunEvent);
      expect(events.flatMap((e) => (e.type === 'iteration_completed' ? [[e.iteration, e.outcome, e.error_kind, e.cost_usd]] : []))).toEqual([
        [1, 'waiting', 'budget', 1.2],
        [2, 'complete', 'none', 0.01],
      ]);
      expect(events.flatMap((e) => (e.type === 'warning' ? [e.message] : []))).toEqual(['the shared budget was reached while iteration 1 ran ($1.2000 spent since it was read): stopping the agent']);
      expect(events.filter((e) => e.type === 'waiting').map((e) => e.type === 'waiting' && e.reason)).toEqual(['budget']);
      expect(events.find((e) => e.type === 'run_finished')).toMatchObject({ status: 'completed', stop_reason: 'success_signal', iterations: 2, cost_usd: 1.21 });
      // 100% of the daily budget, notified once (80% was passed in the same step: only the highest is told).
      const resets = events.flatMap((e) => (e.type === 'waiting' ? [e.until] : []))[0] ?? 0;
      const notice = `100% of the daily budget: $1.2000 of $1.00 spent (resets ${new Date(resets).toISOString()})`;
      expect(events.flatMap((e) => (e.type === 'budget_threshold' ? [[e.window, e.percent, e.spent_usd, e.limit_usd]] : []))).toEqual([['daily', 100, 1.2, 1]]);
      expect(received.map((n) => [n.event, n.reason])).toEqual([
        ['budget', notice],
        ['completed', 'success_signal'],
      ]);
    } finally {
      await hook.close();
      await store.close();
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
    }
  }, 60_000);

  it('refuses a bad amount and set without a limit', async () => {
    const home = mkdtempSync(join(tmpdir(), 'ringmaster-budget-home-'));
    dirs.push(home);
    const env = cleanEnv({ RINGMASTER_HOME: home });
    const bad = await runCli(['budget', 'set', '--daily', 'lots'], { cwd: home, env });
    expect([bad.code, bad.stderr]).toEqual([64, "ringmaster budget: --daily: expected an amount in USD like 20 or 7.50, or 'none' (got 'lots')\n"]);
    const none = await runCli(['budget', 'set'], { cwd: home, env });
    expect(none.stderr).toBe("ringmaster budget: 'budget set' needs --daily USD and/or --monthly USD ('none' clears one)\n");
    const cleared = await runCli(['budget', 'set', '--monthly', '20', '--daily', 'none', '--json'], { cwd: home, env });
    expect(JSON.parse(cleared.stdout)).toMatchObject({ daily: { limit_usd: null }, monthly: { limit_usd: 20, spent_usd: 0 }, by_run: [], reached: null });
  });
});
