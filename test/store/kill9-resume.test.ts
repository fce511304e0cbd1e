// kill -9 at random points of a run, then resume, many times: no iteration row lost or duplicated,
// totals equal the sum of the rows, the interrupted iteration is recorded as interrupted.
// The driver (test/fixtures/store-crash-driver.mjs) follows the runner's store protocol with a fake
// agent process; it runs from dist/, so `npm run build` first (the `test` script does).
// The kills are drawn among the driver's crash points (between any two steps of the protocol, while the agent
// runs, during a git commit), not among moments in time: the same seed kills at the same places on any machine,
// however fast or loaded, so the test is deterministic (and no kill waits for a timer).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { databasePath } from '../../src/store/paths.js';
import { gitEnv, removeDir, sh, tempRepo } from '../git/git-repo.js';
import { prng, runKillable, type KillableResult } from '../helpers/crash.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const DRIVER = join(ROOT, 'test', 'fixtures', 'store-crash-driver.mjs');
const TRIALS = 24;
const PARALLEL = 4;
const MAX_ITERATIONS = 6;
const CHECKPOINT_INTERVAL = 2;

/** Runs the driver once; it SIGKILLs its own process group (driver + agent) at its `crashAt`-th crash point, if given. */
function drive(dir: string, runId: string, crashAt: number | null): Promise<KillableResult> {
  const args = [DRIVER, dir, runId, String(MAX_ITERATIONS), String(CHECKPOINT_INTERVAL), ...(crashAt === null ? [] : [String(crashAt)])];
  return runKillable(args, { cwd: dir, env: { ...gitEnv(), RINGMASTER_HOME: homeOf(dir) }, killAfterMs: null });
}

/** Each trial's data directory: inside its repository's git-excluded .ringmaster/, removed with it. */
function homeOf(dir: string): string {
  return join(dir, '.ringmaster', 'home');
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) removeDir(dir);
});

/** One trial: a run killed at random crash points and resumed until it finishes, then every invariant checked. */
async function trial(index: number, seed: number, points: number): Promise<{ kills: number; interrupted: number; failedCheckpoints: number }> {
  const random = prng(seed);
  const dir = tempRepo({ 'README.md': `trial ${index}\n` });
  dirs.push(dir);
  const runId = `crash${index}`;
  let kills = 0;
  for (let attempt = 0; ; attempt++) {
    expect(attempt, `trial ${index} (seed ${seed}) never finished`).toBeLessThan(40);
    // The first attempt always crashes (a fresh run passes every point); a resumed one passes fewer, so a
    // later draw past its last point lets it finish.
    const kill = attempt === 0 ? 1 + Math.floor(random() * points) : attempt < 4 && random() < 0.85 ? 1 + Math.floor(random() * points) : null;
    const result = await drive(dir, runId, kill);
    if (result.signal === 'SIGKILL') {
      kills++;
      continue;
    }
    expect(result, `trial ${index} attempt ${attempt} (seed ${seed})`).toMatchObject({ code: 0 });
    break;
  }
  const context = `trial ${index}, seed ${seed}, ${kills} kills`;
  const { interrupted, failedCheckpoints } = await checkTrial(dir, runId, kills, context);
  expect(readdirSync(join(homeOf(dir), 'locks')).filter((f) => f.endsWith('.lock')), context).toEqual([]);
  const db = new DatabaseSync(databasePath(homeOf(dir)));
  try {
    expect(db.prepare('PRAGMA integrity_check').get(), context).toEqual({ integrity_check: 'ok' });
  } finally {
    db.close();
  }
  return { kills, interrupted, failedCheckpoints };
}

/** The store's record of a finished trial: iterations 1..6 once each, totals the sum of the rows, events, checkpoints. */
async function checkTrial(dir: string, runId: string, kills: number, context: string): Promise<{ interrupted: number; failedCheckpoints: number }> {
  const store = await openStore({ env: { RINGMASTER_HOME: homeOf(dir) }, create: false });
  try {
    const run = await store.getRun(runId);
    expect(run, context).toMatchObject({ status: 'stopped', stop_reason: 'max_iterations', owner_pid: null });
    const rows = await store.listIterations(runId);
    expect(rows.map((r) => r.number), context).toEqual([1, 2, 3, 4, 5, 6]);
    for (const row of rows) {
      expect(['success', 'interrupted'], context).toContain(row.status);
      if (row.status === 'success') {
        expect([row.cost_usd, row.tokens_in, row.tokens_out], context).toEqual([0.001 * row.number, 100 * row.number, 10 * row.number]);
        expect(readFileSync(join(dir, 'work', `file-${row.number}.txt`), 'utf8'), context).toBe(`iteration ${row.number}\n`);
      } else {
        expect(row.error_kind, context).toBe('interrupted');
        expect(row.completed_at, context).not.toBeNull();
      }
    }
    const interrupted = rows.filter((r) => r.status === 'interrupted').length;
    expect(interrupted, context).toBeLessThanOrEqual(kills);
    const totals = await store.runTotals(runId);
    const sumCost = rows.reduce((s, r) => s + (r.cost_usd ?? 0), 0);
    const sumTokensIn = rows.reduce((s, r) => s + (r.tokens_in ?? 0), 0);
    expect(totals.iterations, context).toBe(rows.length);
    expect(totals.cost_usd, context).toBeCloseTo(sumCost, 9);
    expect(totals.tokens_in, context).toBe(sumTokensIn);
    expect(totals.cost_unknown, context).toBe(interrupted > 0);
    const events = await store.listEvents(runId);
    expect(events.map((e) => e.seq), context).toEqual(events.map((_, i) => i + 1));
    // The event is written after the row in its own statement: a kill between the two can cost the event,
    // never invent or duplicate one. So: events name distinct successful rows, at most one lost per kill.
    const finished = events.filter((e) => e.type === 'iteration_finished').map((e) => e.iteration);
    const succeeded = rows.filter((r) => r.status === 'success').map((r) => r.number);
    expect(new Set(finished).size, context).toBe(finished.length);
    for (const n of finished) expect(succeeded, context).toContain(n);
    expect(succeeded.length - finished.length, context).toBeLessThanOrEqual(kills);
    const checkpoints = await store.listCheckpoints(runId);
    expect(checkpoints.at(-1)?.iteration, context).toBe(MAX_ITERATIONS);
    for (const c of checkpoints.filter((c) => c.state === 'committed')) {
      expect(sh(dir, ['log', '-1', '--format=%s', c.commit_sha ?? '']).trim(), context).toBe(`[ringmaster] checkpoint run ${runId} iteration ${c.iteration}`);
    }
    return { interrupted, failedCheckpoints: checkpoints.filter((c) => c.state === 'failed').length };
  } finally {
    await store.close();
  }
}

describe('kill -9 and resume', () => {
  it('runs against a built store (npm run build)', () => expect(existsSync(join(ROOT, 'dist', 'store', 'index.js'))).toBe(true));

  it(`keeps every iteration exactly once over ${TRIALS} random kills`, async () => {
    const seed = Number(process.env.RINGMASTER_CRASH_SEED ?? 20250102);
    let totalKills = 0;
    let totalInterrupted = 0;
    let failedCheckpoints = 0;
    // How many crash points an undisturbed run passes: kills are drawn among them.
    const probeDir = tempRepo({ 'README.md': 'probe\n' });
    dirs.push(probeDir);
    const probe = await drive(probeDir, 'probe', null);
    expect(probe).toMatchObject({ code: 0 });
    const points = Number(probe.stdout.trim());
    expect(points).toBeGreaterThan(MAX_ITERATIONS * 5);
    // Trials are independent (each its own repository, data directory and seed seed + i): a few at once.
    for (let start = 0; start < TRIALS; start += PARALLEL) {
      const batch = [];
      for (let i = start; i < Math.min(TRIALS, start + PARALLEL); i++) batch.push(trial(i, seed + i, points));
      for (const r of await Promise.all(batch)) {
        totalKills += r.kills;
        totalInterrupted += r.interrupted;
        failedCheckpoints += r.failedCheckpoints;
      }
    }
    console.log(`kill -9 trials: ${TRIALS}, kills: ${totalKills}, interrupted iterations recorded: ${totalInterrupted}, failed checkpoints: ${failedCheckpoints} (seed ${seed})`);
    expect(totalKills).toBeGreaterThanOrEqual(TRIALS);
  }, 300_000);
});
