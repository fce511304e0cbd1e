// A full disk (ENOSPC) during a run, through the CLI: the data directory is a small tmpfs mounted in a private
// mount namespace (`unshare`: gone with the process, nothing to clean up). The run must end with a clear message
// (no stack trace), failed / fatal_error as recorded in the store, its lock released, what was recorded intact.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, useWorkspace } from '../helpers/cli.js';

const ws = useWorkspace('Work.\n');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** How to get a private mount namespace here: as root, or through a user namespace; null when neither works. */
function unshareArgs(): string[] | null {
  const probe = mkdtempSync(join(tmpdir(), 'rm-unshare-'));
  try {
    for (const args of [['--mount', '--propagation', 'private'], ['--user', '--map-root-user', '--mount', '--propagation', 'private']]) {
      const r = spawnSync('unshare', [...args, 'sh', '-c', 'mount -t tmpfs -o size=64k tmpfs "$0"', probe], { encoding: 'utf8' });
      if (r.status === 0) return args;
    }
    return null;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}
const UNSHARE = unshareArgs();

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
  /** A copy of the data directory as the run left it (the tmpfs itself is gone). */
  home: string;
}

/** Runs `ringmaster run` with its data directory on a tmpfs of `size`, then copies that directory out. */
function runOnTmpfs(size: string, agent: string): Outcome {
  const mount = mkdtempSync(join(tmpdir(), 'rm-full-'));
  const out = mkdtempSync(join(tmpdir(), 'rm-full-out-'));
  dirs.push(mount, out);
  const script = `mount -t tmpfs -o size=${size} tmpfs "$RINGMASTER_HOME" || exit 97
"$NODE" "$BIN" run --agent-command "$AGENT" --max-iterations 3 --checkpoint-interval 0 >"$OUT/stdout" 2>"$OUT/stderr"
echo $? >"$OUT/code"
cp -a "$RINGMASTER_HOME" "$OUT/home"
`;
  const r = spawnSync('unshare', [...(UNSHARE ?? []), 'sh', '-c', script], {
    cwd: ws.dir,
    env: cleanEnv({ RINGMASTER_HOME: mount, NODE: process.execPath, BIN, AGENT: agent, OUT: out }),
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return { code: Number(readFileSync(join(out, 'code'), 'utf8')), stdout: readFileSync(join(out, 'stdout'), 'utf8'), stderr: readFileSync(join(out, 'stderr'), 'utf8'), home: join(out, 'home') };
}

function agentScript(name: string, body: string): string {
  const path = join(ws.dir, name);
  writeFileSync(path, `#!/bin/sh\ncat >/dev/null\n${body}\n`, { mode: 0o755 });
  return path;
}

/** The run as the store has it (read from the copy). */
async function recorded(home: string): Promise<{ run: { id: string; status: string; stop_reason: string }; iterations: Array<{ status: string; error_kind: string; error_message: string | null }> }> {
  const runs = await runCli(['runs', '--json'], { cwd: ws.dir, env: cleanEnv({ RINGMASTER_HOME: home }) });
  const [run] = JSON.parse(runs.stdout) as Array<{ id: string }>;
  const show = await runCli(['show', run?.id ?? '', '--json'], { cwd: ws.dir, env: cleanEnv({ RINGMASTER_HOME: home }) });
  return JSON.parse(show.stdout) as Awaited<ReturnType<typeof recorded>>;
}

function expectCleanEnd(outcome: Outcome): void {
  expect(outcome.code).toBe(1);
  expect(outcome.stderr).not.toMatch(/\n\s+at /);
  expect(outcome.stderr).not.toContain('internal error');
  // The lock is released.
  expect(readdirSync(join(outcome.home, 'locks')).filter((f) => f.endsWith('.lock'))).toEqual([]);
}

describe.skipIf(UNSHARE === null)('a full disk', () => {
  it('filled by the log: the agent is stopped, the run ends failed with the reason, recorded, lock released', async () => {
    const outcome = runOnTmpfs('3m', agentScript('flood.sh', 'yes xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx | head -c 6000000\necho done'));
    expectCleanEnd(outcome);
    expect(outcome.stdout).toMatch(/\] ERROR: cannot write \S+\/runs\/\w+\/iteration-1\.log: the disk is full \(ENOSPC\): agent stopped \(resume the run once Ringmaster can write there again\) \(1 iteration completed/);
    const { run, iterations } = await recorded(outcome.home);
    expect(run).toMatchObject({ status: 'failed', stop_reason: 'fatal_error' });
    expect(iterations.map((i) => [i.status, i.error_kind])).toEqual([['failure', 'write_failed']]);
    // What fitted of the log is there.
    const log = readFileSync(join(outcome.home, 'runs', run.id, 'iteration-1.log'), 'utf8');
    expect(log.length).toBeGreaterThan(100_000);
    expect(log.startsWith('xxxxxxxx')).toBe(true);
  }, 60_000);

  it('filled by something else: the store cannot grow, the run ends failed with the reason, the iteration recorded', async () => {
    const outcome = runOnTmpfs('3m', agentScript('filler.sh', 'head -c 8000000 /dev/zero >"$RINGMASTER_HOME/filler" 2>/dev/null\nexit 0'));
    expectCleanEnd(outcome);
    expect(outcome.stdout).toMatch(/\] ERROR: \S+\/ringmaster\.db cannot grow: the disk is full \(database or disk is full\); free some space and resume the run \(1 iteration completed/);
    const { run, iterations } = await recorded(outcome.home);
    expect(run).toMatchObject({ status: 'failed', stop_reason: 'fatal_error' });
    // Recorded, never left running: complete when the store first found the disk full writing its row, interrupted
    // when that was an earlier write (the run's events, stored on the next turn: later on a busy machine) and the run
    // stopped its agent then.
    expect(iterations).toHaveLength(1);
    expect(['success', 'interrupted']).toContain(iterations[0]?.status);
    expect(existsSync(join(outcome.home, 'disk-reserve'))).toBe(false);
  }, 60_000);
});
