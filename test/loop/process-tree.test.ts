// Interrupts, grandchildren and huge outputs: nothing of the agent's tree survives, memory stays bounded.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { capMarker } from '../../src/agents/capped-log.js';
import { cleanEnv, normalise, planAgent, runCli, startCli, useWorkspace } from '../helpers/cli.js';
import { until } from '../helpers/until.js';

const ws = useWorkspace('work\n');

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

describe.each(['SIGINT', 'SIGTERM'] as const)('%s during an iteration', (signal) => {
  it('kills the agent and its grandchild, records the interrupted iteration, exits 130', async () => {
    const { child, done } = startCli(['run', '--agent-command', planAgent('grandchild'), '--max-iterations', '3', '--json'], { cwd: ws.dir, env: cleanEnv() });
    const pidFile = join(ws.dir, '.plan-agent-pids');
    await until('the pid file', () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').includes(' '), 15_000);
    const pids = readFileSync(pidFile, 'utf8').split(' ').map(Number);
    expect(pids.every(alive)).toBe(true);
    child.kill(signal);
    const r = await done;
    expect(r.code).toBe(130);
    for (const pid of pids) expect(alive(pid)).toBe(false);
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.filter((e) => e.type === 'iteration_completed')).toMatchObject([{ iteration: 1, outcome: 'interrupted', error_kind: 'interrupted' }]);
    expect(events.at(-2)).toMatchObject({ type: 'stopped', stop_reason: 'interrupted' });
    expect(events.at(-1)).toMatchObject({ type: 'run_finished', status: 'stopped', stop_reason: 'interrupted', iterations: 1 });
  });
});

it('an interrupt between iterations (during the cooldown) exits 130 at once', async () => {
  const { child, done } = startCli(['run', '--agent-command', planAgent('ok'), '--max-iterations', '3', '--cooldown', '1h'], { cwd: ws.dir, env: cleanEnv() });
  await until('the agent to start', () => existsSync(join(ws.dir, '.plan-agent-count')), 15_000);
  await new Promise((r) => setTimeout(r, 500));
  child.kill('SIGINT');
  const r = await done;
  expect(r.code).toBe(130);
  expect(normalise(r.stdout)).toContain('[T] Interrupted (1 iteration completed, total: X)');
  expect(r.stderr).toContain('Received SIGINT: stopping the agent...');
});

it('a grandchild left behind by an agent that exited is killed with the group', async () => {
  // The agent exits at once but its background child would live forever.
  const script = join(ws.dir, 'leaky.sh');
  writeFileSync(script, '#!/bin/sh\ncat >/dev/null\nsleep 1000 &\necho $! > leaked.pid\necho started\n', { mode: 0o755 });
  const r = await runCli(['run', '--agent-command', script, '--max-iterations', '1', '--cooldown', '0s'], { cwd: ws.dir, env: cleanEnv() });
  expect(r.code).toBe(2);
  const leaked = Number(readFileSync(join(ws.dir, 'leaked.pid'), 'utf8'));
  expect(alive(leaked)).toBe(false);
});

describe('huge output', () => {
  it('1 GiB of agent output: the signal at the very end is found, memory stays bounded', async () => {
    const script = join(ws.dir, 'flood.sh');
    // 1 GiB of 'y' lines, then the signal: `yes | head -c` streams without holding anything.
    writeFileSync(script, '#!/bin/sh\ncat >/dev/null\nyes yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy | head -c 1073741824\necho\necho "<promise>COMPLETE</promise>"\n', { mode: 0o755 });
    const { child, done } = startCli(['run', '--agent-command', script, '--max-iterations', '2', '--json'], { cwd: ws.dir, env: cleanEnv() });
    // VmHWM is the peak resident set size so far: the last reading before exit is the run's peak.
    let peakKb = 0;
    const poll = setInterval(() => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) peakKb = Math.max(peakKb, Number(m[1]));
      } catch {
        // exited
      }
    }, 20);
    const r = await done;
    clearInterval(poll);
    expect(r.code).toBe(0);
    expect(peakKb).toBeGreaterThan(0);
    expect(peakKb).toBeLessThan(150 * 1024);
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const completed = events.find((e) => e.type === 'iteration_completed');
    expect(completed).toMatchObject({ outcome: 'complete', completion_signal_found: true });
    const started = events.find((e) => e.type === 'iteration_started');
    // The log stops at the default cap (100 MiB): head, a marker, tail (ending with the signal).
    const total = 1073741824 + 1 + '<promise>COMPLETE</promise>\n'.length;
    const cap = 100 * 1024 * 1024;
    expect(statSync(String(started?.log_path)).size).toBe(cap + capMarker(total - cap, cap).length);
  }, 180_000);
});
