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
import { cleanEnv, ROOT, runCli, startCli, tempDir, type CliResult } from '../helpers/cli.js';
import { until } from '../helpers/until.js';

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
      expect(both.reduce((n, r) => n + r.totals.iterations, 0)).toBe(Math.round(report.daily.spent_usd / 0.02));

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
      expect(json.by_run).toHaveLength(2);
      expect(json.unpriced).toEqual([]);

      const raise = await runCli(['budget', 'set', '--daily', '1'], { cwd: home, env });
      expect(raise.code).toBe(0);
      const results: CliResult[] = await Promise.all([a.done, b.done, resumed.done]);
      for (const r of results) expect(r.code, r.stderr).toBe(2);
      const runs = await store.listRuns();
      expect(runs.map((r) => [r.status, r.stop_reason, r.totals.iterations]).sort()).toEqual([
        ['completed', 'max_iterations', 10],
        ['completed', 'max_iterations', 10],
        ['completed', 'max_iterations', 2],
      ]);
      expect((await readBudgetReport(store, Date.now())).daily.spent_usd).toBe(0.44);
    } finally {
      await store.close();
      for (const p of [a, b]) if (p.child.exitCode === null) p.child.kill('SIGKILL');
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
