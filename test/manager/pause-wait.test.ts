// A pause and a usage-limit wait at the same time: the pause wins (the run is paused at once, not after the
// reset); resumed before the reset time the run waits for the rest of it, resumed after it goes on at once.
// The agent is a real process speaking a small JSON-lines protocol through an adapter registered like a
// library user's would be.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { registerAgent } from '../../src/agents/registry.js';
import type { AgentEvent } from '../../src/agents/types.js';
import { resolveRun } from '../../src/spec/resolve.js';
import { RunController } from '../../src/manager/run-controller.js';
import type { RunEvent } from '../../src/runner/events.js';
import type { Store } from '../../src/store/store.js';
import { useWorkspace } from '../helpers/cli.js';
import { homeEnv, openTestStore, useFreshHome } from '../helpers/home.js';
import { until } from '../server/harness.js';

const ws = useWorkspace('work\n');
useFreshHome();

// Iteration 1 hits a usage limit that resets RESET_MS later; iteration 2 completes.
const AGENT = `
const fs = require('node:fs');
const n = fs.existsSync('count') ? Number(fs.readFileSync('count', 'utf8')) + 1 : 1;
fs.writeFileSync('count', String(n));
process.stdin.resume();
process.stdin.on('end', () => {
  if (n === 1) { console.log(JSON.stringify({ limit_in_ms: Number(process.env.RESET_MS) })); process.exitCode = 1; }
  else console.log(JSON.stringify({ text: 'done <promise>COMPLETE</promise>' }));
});
`;

registerAgent('limit-agent', () => ({
  name: 'limit-agent',
  displayName: 'limit agent',
  format: 'jsonl',
  supportsResume: false,
  buildInvocation: (options) => ({ command: process.execPath, args: [join(options.cwd, 'agent.js')], env: { ...options.env }, stdin: options.prompt }),
  createParser: () => ({
    line(line): AgentEvent[] {
      const data = JSON.parse(line) as { limit_in_ms?: number; text?: string };
      if (data.limit_in_ms !== undefined) return [{ type: 'limit', kind: 'usage_limit', resetAtMs: Date.now() + data.limit_in_ms, message: 'usage limit' }];
      return [{ type: 'text', text: data.text ?? '' }];
    },
    end: () => [],
  }),
  classifyExit: () => null,
}));

let store: Store;
beforeEach(async () => {
  store = await openTestStore();
  writeFileSync(join(ws.dir, 'agent.js'), AGENT);
});
afterEach(async () => {
  await store.close();
});

function start(resetMs: number): { controller: RunController; events: RunEvent[]; done: Promise<unknown> } {
  const env = homeEnv({ ...(process.env as Record<string, string>), RESET_MS: String(resetMs) });
  const { spec } = resolveRun(ws.dir, {}, { prompt: 'work', maxIterations: '3', settings: [{ key: 'agent.name', flag: '--agent', raw: 'limit-agent' }, { key: 'loop.checkpoint_interval', flag: '--checkpoint-interval', raw: '0' }] });
  const events: RunEvent[] = [];
  const controller = new RunController({ store, env, runId: `pw-${resetMs}`, spec, workspace: ws.dir, mode: 'create', onEvent: (e) => events.push(e) });
  return { controller, events, done: controller.run() };
}

const types = (events: RunEvent[]): string[] => events.map((e) => e.type).filter((t) => !['tokens_used', 'cost_incurred', 'error', 'warning'].includes(t));

it('a pause during a usage-limit wait wins; resumed before the reset, the run waits for the rest, then goes on', async () => {
  const { controller, events, done } = start(4000);
  const waiting = await until('the wait', () => events.find((e): e is Extract<RunEvent, { type: 'waiting' }> => e.type === 'waiting') ?? null);
  expect(controller.requestPause('user')).toBe('accepted');
  await until('paused', () => (events.some((e) => e.type === 'paused') ? true : null));
  expect((await store.getRun(controller.runId))?.status).toBe('paused');
  expect(Date.now()).toBeLessThan(waiting.until);
  expect(controller.requestResume('user')).toBe('accepted');
  await done;
  expect(types(events)).toEqual([
    'run_started', 'iteration_started', 'iteration_completed', 'waiting', 'pause_requested', 'paused', 'resumed', 'waiting',
    'iteration_started', 'completion_signal_detected', 'iteration_completed', 'completed', 'run_finished',
  ]);
  const again = events.filter((e): e is Extract<RunEvent, { type: 'waiting' }> => e.type === 'waiting');
  expect(again.map((e) => e.until)).toEqual([waiting.until, waiting.until]);
  const second = events.find((e) => e.type === 'iteration_started' && e.iteration === 2);
  expect(second?.time).toBeGreaterThanOrEqual(waiting.until);
  expect(await store.getRun(controller.runId)).toMatchObject({ status: 'completed', stop_reason: 'success_signal' });
});

it('resumed after the reset time, the paused run starts its next iteration at once', async () => {
  const { controller, events, done } = start(300);
  const waiting = await until('the wait', () => events.find((e): e is Extract<RunEvent, { type: 'waiting' }> => e.type === 'waiting') ?? null);
  controller.requestPause('user');
  await until('paused', () => (events.some((e) => e.type === 'paused') ? true : null));
  await until('the reset time', () => (Date.now() > waiting.until + 50 ? true : null));
  controller.requestResume('user');
  await done;
  expect(types(events)).toEqual([
    'run_started', 'iteration_started', 'iteration_completed', 'waiting', 'pause_requested', 'paused', 'resumed',
    'iteration_started', 'completion_signal_detected', 'iteration_completed', 'completed', 'run_finished',
  ]);
});
