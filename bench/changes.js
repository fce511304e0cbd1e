// What change tracking (loop.track_changes) and checkpoints cost per iteration on a typical repository (2,000 files
// in 100 directories, one commit), each against the same run without it, interleaved round by round:
// - whole process: `ringmaster run` of an agent that changes one file and adds one per iteration, with
//   tracking off + checkpoints off (the baseline), tracking on, checkpoints every iteration (tracking off), both;
// - in process, on the same repository and changes: the checkpoint of change tracking's after-tree (its commit and
//   HEAD update written in process: work-checkpoint.ts; with BENCH_CHANGES_BASELINE, that of another build too), the plumbing one on a temporary index (checkpoint.ts) and the porcelain one
//   (`git add` + `git commit -- <workspace>`, still the fallback: commitWorkspace); one iteration's snapshots
//   (before, after with its diff, and a before-tree carried over from the last after-tree).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENTS, CLI, NODE, ROOT, jsonLines, median, now, run, summary } from './lib/proc.js';

const AGENT = join(AGENTS, 'touch.sh');
const BASELINE = process.env.BENCH_CHANGES_BASELINE;
const gitEnv = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@x', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@x' };

/** A repository of `files` files of ~2 KB in 100 directories, committed. */
function typicalRepo(files) {
  const dir = mkdtempSync(join(tmpdir(), 'rm-bench-changes-'));
  for (let i = 0; i < files; i++) {
    const sub = join(dir, 'src', `d${i % 100}`);
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `f${i}.ts`), `export const v${i} = ${i};\n${'// filler line of a source file\n'.repeat(60)}`);
  }
  writeFileSync(join(dir, 'PROMPT.md'), 'work\n');
  writeFileSync(join(dir, '.gitignore'), 'node_modules/\n');
  const git = (...args) => execFileSync('git', args, { cwd: dir, env: gitEnv });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  // As in a repository worked in for a while: an index written after the files (not "racily clean", which would make
  // every git command hash every file again), as the user's next `git status` leaves it.
  execFileSync('sleep', ['1.1']);
  git('update-index', '-q', '--really-refresh');
  git('status', '--porcelain');
  return dir;
}

const VARIANTS = {
  baseline: { track: 'false', interval: '0' },
  tracking: { track: 'true', interval: '0' },
  checkpoints: { track: 'false', interval: '1' },
  both: { track: 'true', interval: '1' },
  // The same tracking with the live tree off (git stages every snapshot, as before it): the comparison in the same run.
  trackingByGit: { track: 'true', interval: '0', env: { RINGMASTER_LIVE_TREE: '0' } },
  bothByGit: { track: 'true', interval: '1', env: { RINGMASTER_LIVE_TREE: '0' } },
  // BENCH_CHANGES_BASELINE (a built checkout of another commit): its run with tracking and checkpoints, the same rounds.
  ...(BASELINE ? { bothBaseline: { track: 'true', interval: '1', cli: join(BASELINE, 'bin', 'ringmaster.js') } } : {}),
};

async function cliRound(variant, n, cwd, home) {
  const v = VARIANTS[variant];
  const args = [v.cli ?? CLI, 'run', '--agent-command', AGENT, '--max-iterations', String(n), '--cwd', cwd, '--checkpoint-interval', v.interval, '--json'];
  const env = { ...gitEnv, RINGMASTER_HOME: home, RINGMASTER_LOOP_TRACK_CHANGES: v.track, ...v.env };
  // CPU time of ringmaster and every process it waited for (the agents, git): far less shaken by a busy machine than wall time.
  const r = await run('/usr/bin/time', ['-f', 'cpu %U %S', NODE, ...args], { cwd, capture: true, env });
  const cpu = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(r.stderr);
  if (!cpu) throw new Error(`${variant}: no CPU time in\n${r.stderr}`);
  const events = jsonLines(r.stdout);
  const started = events.find((e) => e.type === 'run_started');
  const finished = events.find((e) => e.type === 'run_finished');
  const completed = events.filter((e) => e.type === 'iteration_completed');
  if (r.code !== 2 || !started || !finished || completed.length !== n) throw new Error(`${variant}: exit ${r.code}, ${completed.length}/${n}\n${r.stderr}`);
  if (v.track === 'true' && completed.some((e) => e.changes?.files_changed_total !== 2)) throw new Error(`${variant}: files_changed not 2`);
  return { loopMs: (finished.time - started.time) / n, cpuMs: ((Number(cpu[1]) + Number(cpu[2])) * 1000) / n };
}

/** CPU ms used so far by this process and the children it has reaped (git): /proc/self/stat's utime..cstime. */
function cpuSoFar() {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  // After the command name: state is field 3, utime 14, stime 15, cutime 16, cstime 17 (1-based); ticks of 10 ms.
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) * 10;
}

const CHECKPOINTS_PER_ROUND = 10;

/** In process: checkpoints by each path (wall and CPU each, over a batch), and one iteration's snapshots. */
async function inProcessRound(cwd, reset, trackers, round) {
  const { tracker, baseTracker } = trackers;
  const { checkpoint, commitWorkspace } = await import(join(ROOT, 'dist', 'git', 'checkpoint.js'));
  const row = {};
  const change = (i) => writeFileSync(join(cwd, 'src', 'changed.txt'), `${i} ${Math.random()}\n`);
  // One tracked iteration of a plain run (its before-tree carried over from the last after-tree when it can be).
  const iterateWith = (t) => async (i) => {
    const before = await t.before(cwd);
    change(i);
    await (await t.after(before)).dispose({ reusable: true });
  };
  const iterate = iterateWith(tracker);
  const batch = async (prepare, commit) => {
    let wall = 0;
    let cpu = 0;
    for (let i = 0; i < CHECKPOINTS_PER_ROUND; i++) {
      await prepare(i);
      const c = cpuSoFar();
      const t = now();
      if (!(await commit(i))?.committed) throw new Error('a checkpoint did not commit');
      wall += now() - t;
      cpu += cpuSoFar() - c;
    }
    return { wall: wall / CHECKPOINTS_PER_ROUND, cpu: cpu / CHECKPOINTS_PER_ROUND };
  };
  const paths = {
    porcelain: [async (i) => change(i), (i) => commitWorkspace(cwd, `porcelain ${i}`)],
    plumbing: [async (i) => change(i), (i) => checkpoint(cwd, 'bench', i)],
    // Change tracking's after-tree committed (the default run with tracking on): timed is the checkpoint alone.
    tracked: [iterate, (i) => tracker.checkpoint(cwd, `tracked ${i}`)],
    ...(baseTracker ? { trackedBaseline: [iterateWith(baseTracker), (i) => baseTracker.checkpoint(cwd, `tracked ${i}`)] } : {}),
  };
  // The other paths replaced the real index: the first tracked checkpoint after them takes the full path (as a run's would).
  const warmTracked = async (t) => {
    await iterateWith(t)(-1);
    if ((await t.checkpoint(cwd, 'warm')) === null) await checkpoint(cwd, 'bench', 0);
  };
  const names = ['porcelain', 'plumbing', 'tracked', ...(baseTracker ? ['trackedBaseline'] : [])];
  for (const name of round % 2 === 0 ? names : names.reverse()) {
    if (name === 'tracked') await warmTracked(tracker);
    if (name === 'trackedBaseline') await warmTracked(baseTracker);
    const r = await batch(...paths[name]);
    row[`${name}Ms`] = r.wall;
    row[`${name}CpuMs`] = r.cpu;
  }
  let t;
  // One iteration's snapshots with a fresh before-tree (after a pause, a verify command, a task's own work).
  await tracker.before(cwd).then((b) => tracker.after(b)).then((d) => d.dispose());
  t = now();
  const before = await tracker.before(cwd);
  row.beforeMs = now() - t;
  change(3);
  t = now();
  const tracked = await tracker.after(before);
  row.afterAndDiffMs = now() - t;
  await tracked.dispose({ reusable: true });
  if (tracked.files.length !== 1) throw new Error(`diff found ${tracked.files.length} files`);
  // The next one as a plain run takes it: the before-tree is the last after-tree (no git).
  t = now();
  const carried = await tracker.before(cwd);
  row.beforeCarriedMs = now() - t;
  change(4);
  await (await tracker.after(carried)).dispose();
  // The floor of any look at the whole worktree: one `git status` (index read, every file stat'ed, untracked listed).
  const { git: runGit } = await import(join(ROOT, 'dist', 'git', 'git-exec.js'));
  t = now();
  await runGit(cwd, ['status', '--porcelain', '--untracked-files=all']);
  row.gitStatusMs = now() - t;
  reset();
  return row;
}

/** Runs `rounds` interleaved rounds and returns the result object. */
export async function benchChanges({ rounds, iterations: n, files }) {
  const cwd = typicalRepo(files);
  const home = mkdtempSync(join(tmpdir(), 'rm-bench-changes-home-'));
  const git = (...args) => execFileSync('git', args, { cwd, env: gitEnv });
  const initial = git('rev-parse', 'HEAD').toString().trim();
  const reset = () => {
    git('reset', '-q', '--hard', initial);
    git('clean', '-q', '-fdx');
  };
  const rows = [];
  const { createChangeTracker } = await import(join(ROOT, 'dist', 'runner', 'change-tracking.js'));
  const tracker = createChangeTracker({ discardFailed: false });
  const baseTracker = BASELINE ? (await import(join(BASELINE, 'dist', 'runner', 'change-tracking.js'))).createChangeTracker({ discardFailed: false }) : null;
  try {
    for (let round = 0; round < rounds; round++) {
      const row = { round };
      const order = round % 2 === 0 ? Object.keys(VARIANTS) : Object.keys(VARIANTS).reverse();
      for (const variant of order) {
        const measured = await cliRound(variant, n, cwd, home);
        row[variant] = measured.loopMs;
        row[`${variant}Cpu`] = measured.cpuMs;
        reset();
      }
      Object.assign(row, await inProcessRound(cwd, reset, { tracker, baseTracker }, round));
      rows.push(row);
      process.stderr.write(`  changes round ${round + 1}/${rounds}: ${Object.keys(VARIANTS).map((v) => `${v} ${row[v].toFixed(2)}`).join(', ')} ms/it; checkpoint porcelain ${row.porcelainMs.toFixed(1)} ms (${row.porcelainCpuMs} CPU), plumbing ${row.plumbingMs.toFixed(1)} ms (${row.plumbingCpuMs} CPU), tracked ${row.trackedMs.toFixed(1)} ms (${row.trackedCpuMs} CPU)${baseTracker ? `, baseline's tracked ${row.trackedBaselineMs.toFixed(1)} ms (${row.trackedBaselineCpuMs} CPU)` : ''}\n`);
    }
  } finally {
    rmSync(cwd, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
    await tracker.close();
    await baseTracker?.close();
  }
  const med = (key) => median(rows.map((r) => r[key]));
  const tracking = med('tracking') - med('baseline');
  return {
    name: 'changes',
    agent: 'bench/agents/touch.sh (changes one tracked file, adds one untracked file)',
    repository: `${files} files of ~2 KB in 100 directories, one commit`,
    iterations: n,
    rounds,
    ...(BASELINE ? { baseline: BASELINE } : {}),
    ms_per_iteration: Object.fromEntries(Object.keys(VARIANTS).map((v) => [v, summary(rows.map((r) => r[v]), 3)])),
    cpu_ms_per_iteration_whole_process: Object.fromEntries(Object.keys(VARIANTS).map((v) => [v, summary(rows.map((r) => r[`${v}Cpu`]), 2)])),
    tracking_cost_ms_per_iteration: Math.round(tracking * 100) / 100,
    tracking_cpu_ms_per_iteration: Math.round((med('trackingCpu') - med('baselineCpu')) * 100) / 100,
    checkpoint_cpu_ms_per_iteration: Math.round((med('checkpointsCpu') - med('baselineCpu')) * 100) / 100,
    checkpoint_cost_ms_per_iteration: Math.round((med('checkpoints') - med('baseline')) * 100) / 100,
    in_process_ms: {
      checkpoint_porcelain: summary(rows.map((r) => r.porcelainMs), 2),
      checkpoint_plumbing: summary(rows.map((r) => r.plumbingMs), 2),
      checkpoint_porcelain_cpu: summary(rows.map((r) => r.porcelainCpuMs), 2),
      checkpoint_plumbing_cpu: summary(rows.map((r) => r.plumbingCpuMs), 2),
      checkpoint_tracked: summary(rows.map((r) => r.trackedMs), 2),
      checkpoint_tracked_cpu: summary(rows.map((r) => r.trackedCpuMs), 2),
      ...(BASELINE
        ? { checkpoint_tracked_baseline: summary(rows.map((r) => r.trackedBaselineMs), 2), checkpoint_tracked_baseline_cpu: summary(rows.map((r) => r.trackedBaselineCpuMs), 2) }
        : {}),
      snapshot_before: summary(rows.map((r) => r.beforeMs), 2),
      snapshot_before_carried_over: summary(rows.map((r) => r.beforeCarriedMs), 2),
      snapshot_after_and_diff: summary(rows.map((r) => r.afterAndDiffMs), 2),
      git_status_for_reference: summary(rows.map((r) => r.gitStatusMs), 2),
    },
    target: 'tracking_cpu_ms_per_iteration <= 10 (a few ms) and the tracked checkpoint cheaper (CPU) than the plumbing one',
    pass: med('trackingCpu') - med('baselineCpu') <= 10 && med('trackedCpuMs') < med('plumbingCpuMs'),
    rounds_raw: rows,
  };
}
