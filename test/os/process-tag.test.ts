// Processes found by their tag (os/process-tag.ts) right after a short-lived agent, when the pids handed out since
// it are probed one by one instead of listing /proc: a tagged process is found once, by its pid, never by the ids
// of its threads (which answer in /proc too).
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { AGENT_TAG_VARIABLE, findTagged } from '../../src/os/process-tag.js';
import { until } from '../helpers/until.js';

let child: ChildProcess | null = null;
afterEach(async () => {
  if (child?.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
  child = null;
});

it('finds a tagged process with threads once, by its pid, among the pids handed out since the agent', async () => {
  const tag = `test-${process.pid}-${Date.now()}`;
  // A Node process: besides its main thread it runs V8's and libuv's, whose ids follow its pid.
  const started = spawn(process.execPath, ['-e', 'process.stdout.write("ready"); setInterval(() => {}, 1000)'], {
    env: { ...process.env, [AGENT_TAG_VARIABLE]: tag },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  child = started;
  let out = '';
  started.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await until('the tagged process ready', () => out === 'ready');
  const pid = started.pid ?? 0;
  const threads = readdirSync(`/proc/${pid}/task`).map(Number);
  expect(threads.length).toBeGreaterThan(1);

  // A tree younger than 100 ms whose root is the pid just before: its candidates are the pids handed out since.
  const quick = findTagged((t) => t === tag, { pid: pid - 1, startTime: null, spawnedAtMs: Date.now() });
  expect(quick.map((p) => p.pid)).toEqual([pid]);
  // The same answer from the listing of every process.
  expect(findTagged((t) => t === tag).map((p) => p.pid)).toEqual([pid]);
});
