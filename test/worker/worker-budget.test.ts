// The shared budget on PostgreSQL with two `ringmaster worker` processes (README "Budget"): repository runs of a
// fake `claude` reporting $0.02 per iteration, a daily budget of $0.05 set from another machine. The workers'
// runs never spend more than the budget plus one iteration per running agent and wait (reason budget); a run
// queued then waits before its first iteration; raising the budget lets every run finish.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { readBudgetReport } from '../../src/store/budget.js';
import type { Store } from '../../src/store/store.js';
import { ROOT, runCli, startCli } from '../helpers/cli.js';
import { usePostgres } from '../helpers/postgres.js';
import { useScratch } from '../helpers/scratch.js';
import { until } from '../helpers/until.js';
import { bareRemote, machineEnv } from './machines.js';

const pg = usePostgres();
const scratch = useScratch();
const FAKE_BIN = join(ROOT, 'test', 'fixtures', 'bin-claude-budget');

function env(url: string, home: string): Record<string, string> {
  return { ...machineEnv(url, home), PATH: `${FAKE_BIN}:${process.env.PATH ?? ''}`, RINGMASTER_LOOP_BUDGET_POLL: '50ms' };
}

async function cli(url: string, args: string[]): Promise<string> {
  const home = scratch.temp('rm-client-');
  const result = await runCli(args, { cwd: home, env: env(url, home) });
  if (result.code !== 0) throw new Error(`ringmaster ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

async function queue(url: string, repo: string, max: number): Promise<string> {
  const out = await cli(url, ['run', '--repository', repo, '--branch', 'main', '--prompt', 'work', '--agent', 'claude', '--max-iterations', String(max), '--checkpoint-interval', '0', '--json']);
  return (JSON.parse(out) as { id: string }).id;
}

async function waitsForBudget(store: Store, id: string): Promise<boolean> {
  const events = await store.listEvents(id);
  const last = events.filter((e) => e.type === 'waiting' || e.type === 'iteration_started').at(-1);
  return (await store.getRun(id))?.status === 'waiting' && last?.type === 'waiting' && (last.payload as { reason: string }).reason === 'budget';
}

describe('ringmaster worker with a shared budget', () => {
  it('holds two workers to one daily budget; a raise lets their runs finish', async () => {
    const url = pg.url;
    const repo = bareRemote(scratch);
    await cli(url, ['budget', 'set', '--daily', '0.05']);
    for (const name of ['a', 'b']) {
      const home = scratch.temp(`rm-worker-${name}-`);
      scratch.track(startCli(['worker', '--workdir', join(home, 'work'), '--concurrency', '2'], { cwd: home, env: env(url, home) }).child);
    }
    const store = await PostgresStore.open(url);
    try {
      const ids = [await queue(url, repo, 10), await queue(url, repo, 10)];
      await until('both runs waiting for the budget', async () => (await Promise.all(ids.map((id) => waitsForBudget(store, id)))).every(Boolean), 60_000);
      const report = await readBudgetReport(store, Date.now());
      expect(report.daily.spent_usd).toBeGreaterThanOrEqual(0.05);
      expect(report.daily.spent_usd).toBeLessThanOrEqual(0.09);

      const third = await queue(url, repo, 2);
      await until('the third run waiting for the budget', () => waitsForBudget(store, third), 60_000);
      expect(await store.listIterations(third)).toEqual([]);

      await cli(url, ['budget', 'set', '--daily', '1']);
      await until('every run finished', async () => (await Promise.all([...ids, third].map((id) => store.getRun(id)))).every((r) => r?.status === 'completed'), 60_000);
      const runs = await store.listRuns();
      // An iteration the budget cut short (the other run's spend reached it while it worked) ends with error kind
      // budget and uses no iteration of the limit.
      const finished = async (runId: string): Promise<number> => (await store.listIterations(runId)).filter((i) => i.error_kind !== 'budget').length;
      expect((await Promise.all(runs.map(async (r) => [r.stop_reason, await finished(r.id)]))).sort()).toEqual([
        ['max_iterations', 10],
        ['max_iterations', 10],
        ['max_iterations', 2],
      ]);
      expect((await readBudgetReport(store, Date.now())).daily.spent_usd).toBeCloseTo(0.44, 3);
    } finally {
      await store.close();
    }
  }, 120_000);
});
