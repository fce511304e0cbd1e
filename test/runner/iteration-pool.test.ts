// The iteration pool of `ringmaster serve`: iterations run in helper processes report the same result, activity
// and log as in this process; an abort kills the agent's group; a helper that dies fails its iteration, takes its
// agent with it and is replaced; closing the pool leaves no helper; what the helpers cannot run (an agent a library
// registered in this process) runs here. Uses the built dist/ (the helper's entry is compiled JavaScript).
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type * as RegistryModule from '../../src/agents/registry.js';
import type * as PoolModule from '../../src/runner/iteration-pool.js';
import type * as IterationModule from '../../src/runner/iteration.js';
import type * as SuspendModule from '../../src/agents/suspend-signal.js';
import type { IterationInput, IterationOutcomeData } from '../../src/runner/iteration.js';
import type { AgentActivityBody } from '../../src/runner/events.js';
import { PLAN_AGENT, ROOT, useWorkspace } from '../helpers/cli.js';

/** A fake `claude` playing the scripted task agent (test/fixtures/bin-task-claude). */
const TASK_CLAUDE_BIN = join(ROOT, 'test', 'fixtures', 'bin-task-claude');
import { alive, childrenNamed, parentOf, processState } from '../helpers/proc.js';
import { until } from '../helpers/until.js';

const dist = (path: string): string => join(ROOT, 'dist', path);
const { IterationPool } = (await import(dist('runner/iteration-pool.js'))) as typeof PoolModule;
const { runIteration } = (await import(dist('runner/iteration.js'))) as typeof IterationModule;
const { getAdapter, registerAgent } = (await import(dist('agents/registry.js'))) as typeof RegistryModule;

const ws = useWorkspace('work\n');
const pool = new IterationPool(2);
// Until its helpers are ready a pool runs iterations in this process: these tests are about the helpers.
beforeAll(() => pool.started());
afterAll(() => pool.close());

/** The next agent is the first again, and the `gate` plan waits until .gate-1 exists. */
function closeGate(): void {
  writeFileSync(join(ws.dir, '.plan-agent-count'), '0');
  rmSync(join(ws.dir, '.gate-1'), { force: true });
}

/** The process that spawned a running agent (never 0: a signal to pid 0 would reach this test's own group). */
function helperOf(pid: number): number {
  const parent = parentOf(pid);
  if (parent === null || parent <= 1) throw new Error(`agent ${pid} is gone`);
  return parent;
}

/** Starts a `gate` agent on `on` and waits until it is spawned; `open()` lets it finish. */
async function gated(on: { run: PoolModule.IterationPool['run'] }): Promise<{ pid: number; running: Promise<IterationOutcomeData>; open(): void }> {
  let pid = 0;
  closeGate();
  const running = on.run(input('gate', { onSpawn: (p) => (pid = p) }));
  await until('the agent spawned', () => pid !== 0);
  return { pid, running, open: () => writeFileSync(join(ws.dir, '.gate-1'), '') };
}

function input(plan: string, extra: Partial<IterationInput> = {}): IterationInput & { activity: AgentActivityBody[] } {
  const activity: AgentActivityBody[] = [];
  const command = [process.execPath, PLAN_AGENT, plan];
  return {
    adapter: getAdapter({ name: 'command', command }),
    agentSpec: { name: 'command', command },
    prompt: 'do it',
    cwd: ws.dir,
    logPath: join(ws.dir, 'logs', `${plan}-${Math.random()}.log`),
    model: null,
    extraArgs: [],
    permissionMode: 'bypass',
    resumeSessionId: null,
    resumeCostBaseline: 0,
    env: { ...process.env },
    successSignals: ['<promise>COMPLETE</promise>'],
    failureSignal: '<promise>FAILURE</promise>',
    idleTimeoutMs: null,
    hardTimeoutMs: null,
    deadlineMs: null,
    killGraceMs: 500,
    prices: {},
    signal: new AbortController().signal,
    onActivity: (a) => activity.push(a),
    activity,
    ...extra,
  };
}

it('runs an iteration in a helper process with the same result, activity and log as here', async () => {
  expect(existsSync(dist('runner/iteration-worker.js'))).toBe(true);
  const there = input('complete');
  const viaPool = await pool.run(there);
  await viaPool.logClosed;
  const here = input('complete');
  writeFileSync(join(ws.dir, '.plan-agent-count'), '0');
  const local = await runIteration(here);
  await local.logClosed;
  const comparable = (o: typeof local) => ({ ...o.result, durationMs: 0, logClosed: undefined });
  expect(comparable(viaPool)).toEqual(comparable(local));
  expect(viaPool.result).toMatchObject({ exitCode: 0, successSignal: true, errorKind: 'none' });
  expect(viaPool.text).toBe('all done <promise>COMPLETE</promise>\n');
  expect(there.activity).toEqual([{ kind: 'output', stream: 'stdout', offset: 0, text: 'all done <promise>COMPLETE</promise>\n' }]);
  expect(readFileSync(there.logPath, 'utf8')).toBe('all done <promise>COMPLETE</promise>\n');
});

it('an abort kills the agent and its group, and the iteration is interrupted', async () => {
  const controller = new AbortController();
  let pid = 0;
  const running = pool.run(input('grandchild', { signal: controller.signal, onSpawn: (p) => (pid = p) }));
  const pidsFile = join(ws.dir, '.plan-agent-pids');
  await until('the agent and its grandchild', () => existsSync(pidsFile) && readFileSync(pidsFile, 'utf8').includes(' '));
  const pids = readFileSync(pidsFile, 'utf8').split(' ').map(Number);
  expect(pid).toBe(pids[0]);
  controller.abort();
  const outcome = await running;
  expect(outcome.result).toMatchObject({ errorKind: 'interrupted', exitCode: null });
  for (const p of pids) expect(alive(p), `process ${p}`).toBe(false);
});

it('an agent registered in this process runs here', async () => {
  registerAgent('here-only', () => getAdapter({ name: 'command', command: [process.execPath, PLAN_AGENT, 'ok'] }));
  const it = input('ok', { agentSpec: { name: 'here-only', command: null } });
  const outcome = await pool.run(it);
  expect(outcome.result).toMatchObject({ exitCode: 0, errorKind: 'none' });
});


it('pause --now reaches the agent in a helper process: suspended (SIGSTOP) with its iteration timeout held, then continued', async () => {
  const { createSuspendSwitch } = (await import(dist('agents/suspend-signal.js'))) as typeof SuspendModule;
  const suspend = createSuspendSwitch();
  writeFileSync(join(ws.dir, '.plan-agent-count'), '0');
  const startedAt = Date.now();
  const running = pool.run(input('ticker', { suspend, hardTimeoutMs: 2000 }));
  const ticksFile = join(ws.dir, '.ticks-1');
  await until('the first tick', () => existsSync(ticksFile));
  const pid = Number(readFileSync(join(ws.dir, '.plan-agent-pids'), 'utf8'));
  suspend.set(true);
  await until('the agent stopped', () => processState(pid) === 'T');
  const held = readFileSync(ticksFile, 'utf8');
  // Past the iteration timeout: a timer that was not held would kill the agent meanwhile. A fixed wait is the only
  // way to show that something does not happen; it asserts nothing about time.
  await new Promise((r) => setTimeout(r, 2500));
  expect(processState(pid)).toBe('T');
  expect(readFileSync(ticksFile, 'utf8')).toBe(held);
  suspend.set(false);
  await until('a tick after the agent continued', () => readFileSync(ticksFile, 'utf8') !== held);
  writeFileSync(join(ws.dir, '.gate-1'), '');
  const outcome = await running;
  const wall = Date.now() - startedAt;
  expect(outcome.result).toMatchObject({ exitCode: 0, errorKind: 'none' });
  // The suspended time (2.5 s and more) is not the agent's: the iteration's duration leaves it out (the helper
  // measures it; 1 s of slack for the messages between the processes).
  expect(outcome.result.durationMs).toBeLessThanOrEqual(wall - suspend.suspendedMs() + 1000);
});


it("an agent's spend reaches this process as it works, and a spent budget kills it in its helper (max_cost)", async () => {
  const script = join(ws.dir, 'spend-script.json');
  // No task in the prompt: the task agent plays "none"; it reports $0.60 of claude-opus-5-5 tokens, then works on forever.
  writeFileSync(script, JSON.stringify({ none: [{ usage: { model: 'claude-opus-5-5', input_tokens: 150_000, output_tokens: 0 }, hang: true }] }));
  const budget = new AbortController();
  const spent: number[] = [];
  let pid = 0;
  const outcome = await pool.run(
    input('unused', {
      adapter: getAdapter({ name: 'claude', command: null }),
      agentSpec: { name: 'claude', command: null },
      env: { ...process.env, PATH: `${TASK_CLAUDE_BIN}:${process.env.PATH ?? ''}`, TASK_AGENT_NODE: process.execPath, TASK_AGENT_SCRIPT: script },
      budgetSignal: budget.signal,
      onSpawn: (p) => (pid = p),
      onSpend: (usd) => {
        spent.push(usd);
        budget.abort();
      },
    }),
  );
  expect(spent).toEqual([0.6]);
  expect(outcome.result).toMatchObject({ errorKind: 'max_cost', errorMessage: "the run's cost budget was spent while the agent worked: agent stopped", costUsd: 0.6, exitSignal: 'SIGKILL' });
  expect(alive(pid)).toBe(false);
});

it('the agent is spawned by a helper process named ringmaster-iter, not by this process', async () => {
  const gate = await gated(pool);
  const helper = helperOf(gate.pid);
  expect(helper).not.toBe(process.pid);
  expect(childrenNamed(process.pid, 'ringmaster-iter')).toContain(helper);
  gate.open();
  expect((await gate.running).result).toMatchObject({ exitCode: 0, errorKind: 'none' });
});

it('a helper that dies fails its iteration, its agent is killed, and the next iteration runs in a new helper', async () => {
  let pid = 0;
  const running = pool.run(input('grandchild', { onSpawn: (p) => (pid = p) }));
  const pidsFile = join(ws.dir, '.plan-agent-pids');
  await until('the agent and its grandchild', () => pid !== 0 && existsSync(pidsFile) && readFileSync(pidsFile, 'utf8').startsWith(`${pid} `));
  const pids = readFileSync(pidsFile, 'utf8').split(' ').map(Number);
  const helper = helperOf(pid);
  expect(childrenNamed(process.pid, 'ringmaster-iter')).toContain(helper);
  process.kill(helper, 'SIGKILL');
  const outcome = await running;
  expect(outcome.result).toMatchObject({ errorKind: 'agent_error', errorMessage: 'the iteration helper process died (killed by SIGKILL)' });
  await until('the agent and its grandchild gone', () => pids.every((p) => !alive(p)));
  await until('the helper replaced', () => pool.readyHelpers === 2);
  const next = await pool.run(input('ok'));
  expect(next.result).toMatchObject({ exitCode: 0, errorKind: 'none' });
});

it('a helper outlives SIGINT, SIGTERM and SIGHUP (Ctrl+C reaches the whole group): the server ends the runs', async () => {
  const gate = await gated(pool);
  const helper = helperOf(gate.pid);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.kill(helper, signal);
  gate.open();
  expect((await gate.running).result).toMatchObject({ exitCode: 0, errorKind: 'none' });
  expect(alive(helper)).toBe(true);
});

it('live output that the server cannot take as fast as the agent writes it is dropped from the live view, never from the log', async () => {
  const bytes = 64 * 1024 * 1024;
  const command = ['sh', '-c', `yes ringmaster-flood-line | head -c ${bytes}`];
  const pieces: Array<{ offset: number; length: number }> = [];
  const it = input('unused', { adapter: getAdapter({ name: 'command', command }), agentSpec: { name: 'command', command } });
  let held = false;
  it.onActivity = (a) => {
    if (a.kind !== 'output') return;
    pieces.push({ offset: a.offset, length: a.text.length });
    if (held) return;
    held = true;
    // This process stops taking messages until the helper has read half the output: what it sent meanwhile waits
    // in its channel, and past its backlog it drops live pieces.
    const wait = new Int32Array(new SharedArrayBuffer(4));
    while ((statSync(it.logPath, { throwIfNoEntry: false })?.size ?? 0) < bytes / 2) Atomics.wait(wait, 0, 0, 10);
  };
  const outcome = await pool.run(it);
  await outcome.logClosed;
  expect(outcome.result).toMatchObject({ exitCode: 0, errorKind: 'none' });
  expect(statSync(it.logPath).size).toBe(bytes);
  const received = pieces.reduce((sum, p) => sum + p.length, 0);
  expect(received).toBeLessThan(bytes / 2 + 8 * 1024 * 1024);
  for (let i = 1; i < pieces.length; i++) expect(pieces[i]?.offset).toBeGreaterThanOrEqual((pieces[i - 1]?.offset ?? 0) + (pieces[i - 1]?.length ?? 0));
  expect(pieces.some((p, i) => i > 0 && p.offset > (pieces[i - 1]?.offset ?? 0) + (pieces[i - 1]?.length ?? 0))).toBe(true);
}, 60_000);

it('an iteration whose run is already aborted is interrupted at once in its helper', async () => {
  const controller = new AbortController();
  controller.abort();
  const outcome = await pool.run(input('hang', { signal: controller.signal }));
  expect(outcome.result).toMatchObject({ errorKind: 'interrupted' });
});

it('closing a pool under a running iteration ends it (its agent killed), as a helper that dies would', async () => {
  const own = new IterationPool(1);
  await own.started();
  let pid = 0;
  const running = own.run(input('hang', { onSpawn: (p) => (pid = p) }));
  await until('the agent spawned', () => pid !== 0);
  await own.close();
  const outcome = await running;
  expect(outcome.result).toMatchObject({ errorKind: 'agent_error' });
  expect(outcome.result.errorMessage).toMatch(/^the iteration helper process died/);
  await until('the agent gone', () => !alive(pid));
});

it('closing a pool ends its helpers', async () => {
  // Helpers still starting show their command line, not yet their title.
  const helpersNow = (): number[] => childrenNamed(process.pid, 'ringmaster-iter', (argv) => argv.some((a) => a.endsWith('iteration-worker.js')));
  const before = new Set(helpersNow());
  const own = new IterationPool(2);
  await own.started();
  expect(own.readyHelpers).toBe(2);
  expect((await own.run(input('ok'))).result).toMatchObject({ exitCode: 0, errorKind: 'none' });
  const helpers = helpersNow().filter((p) => !before.has(p));
  expect(helpers).toHaveLength(2);
  await own.close();
  for (const p of helpers) expect(alive(p), `helper ${p}`).toBe(false);
});

it('a pool whose helpers cannot start runs its iterations in this process, and retries them after a pause', async () => {
  const entry = join(ws.dir, 'broken-helper.mjs');
  writeFileSync(entry, 'process.exit(3);\n');
  const broken = new IterationPool(1, { entry: pathToFileURL(entry) });
  await broken.started();
  expect(broken.readyHelpers).toBe(0);
  const gate = await gated(broken);
  expect(parentOf(gate.pid)).toBe(process.pid);
  gate.open();
  expect((await gate.running).result).toMatchObject({ exitCode: 0, errorKind: 'none' });
  await broken.close();
  expect(childrenNamed(process.pid, 'node', (argv) => argv.includes(entry))).toEqual([]);
});
