// A sandboxed run (`ringmaster run --sandbox`, bubblewrap) whose agent tries every way out: write ~/.bashrc and
// /etc/x (as root too), read a planted ~/.ssh key and Ringmaster's database, reach a TCP port on the host's
// loopback (directly and through the proxy), leave a `setsid` daemon behind. Every attempt fails, the workspace
// write succeeds, the refused connection is an event, and the daemon is gone when the run ends. Then kill -9 of
// Ringmaster mid-iteration: nothing of the sandbox is left.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_BWRAP, SANDBOX_SUPPORT as support, SKIP_REASON } from '../helpers/sandbox.js';
import { cleanEnv, ROOT, runCli, startCli } from '../helpers/cli.js';
import { useScratch } from '../helpers/scratch.js';
import { until } from '../helpers/until.js';

const AGENT = join(ROOT, 'test', 'fixtures', 'agents', 'escape-agent.mjs');
const scratch = useScratch();

/** Processes whose command line holds `marker`. */
function withMarker(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

describe.skipIf(NO_BWRAP)(`sandboxed agent${SKIP_REASON}`, () => {
  let home: string;
  let workspace: string;
  let data: string;
  let server: Server;
  let port: number;

  beforeAll(async () => {
    // HOME outside /tmp: /tmp is private in the sandbox, so only a real home shows what is hidden and read-only.
    mkdirSync(join(homedir(), '.cache'), { recursive: true });
    home = scratch.adopt(mkdtempSync(join(homedir(), '.cache', 'ringmaster-sandbox-home-')));
    mkdirSync(join(home, '.ssh'), { mode: 0o700 });
    writeFileSync(join(home, '.ssh', 'id_ed25519'), 'PLANTED-PRIVATE-KEY\n', { mode: 0o600 });
    writeFileSync(join(home, '.bashrc'), '# original\n');
    workspace = scratch.temp('ringmaster-sandbox-ws-');
    data = scratch.temp('ringmaster-sandbox-data-');
    server = createServer((s) => s.end('reached\n'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    rmSync('/etc/x', { force: true });
  });

  it('every escape fails, the workspace write succeeds, the refused connection is recorded, the daemon is gone; resumed, still sandboxed', { timeout: 90_000 }, async () => {
    const marker = `ringmaster-escape-${process.pid}-a`;
    const env = cleanEnv({ HOME: home, RINGMASTER_HOME: data });
    const r = await runCli(['run', '--sandbox', '--agent-command', `${process.execPath} ${AGENT} ${port} ${marker}`, '--prompt', 'escape', '--max-iterations', '1', '--json', '-v'], { cwd: workspace, env });
    expect(r.code).toBe(2);
    const events = r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    const said = events.filter((e) => e.type === 'agent_activity' || e.type === 'agent_output').map((e) => JSON.stringify(e)).join('\n');
    const runId = String(events[0]?.run_id);
    const attempts = (n: number): string[] => readFileSync(join(data, 'runs', runId, `iteration-${n}.log`), 'utf8').split('\n').filter((l) => l.includes(': '));
    const lines = attempts(1);
    expect(lines).toEqual([
      'write ~/.bashrc: blocked EROFS',
      'write /etc/x: blocked EROFS',
      'read ~/.ssh/id_ed25519: blocked ENOENT',
      'read the database: blocked ENOENT',
      'connect 127.0.0.1 directly: blocked ECONNREFUSED',
      'connect 127.0.0.1 through the proxy: blocked 403',
      'start a setsid daemon: ok',
    ]);
    expect(said).not.toContain('PLANTED');
    expect(readFileSync(join(home, '.bashrc'), 'utf8')).toBe('# original\n');
    expect(existsSync('/etc/x')).toBe(false);
    expect(readFileSync(join(workspace, 'result.txt'), 'utf8')).toBe('written in the workspace\n');
    expect(events.filter((e) => e.type === 'sandbox_blocked').map((e) => [e.iteration, e.host, e.port])).toEqual([[1, '127.0.0.1', port]]);
    // Killed by the kernel with the sandbox's pid namespace (no sweep by tag: it cleared its environment).
    await until('the daemon is gone', () => withMarker(marker).length === 0);
    const show = await runCli(['show', String(events[0]?.run_id), '--json'], { cwd: workspace, env });
    const shown = JSON.parse(show.stdout) as { run: { spec: { sandbox: unknown } } };
    expect(shown.run.spec.sandbox).toEqual({ network: 'agent', hide: [], allowWrite: [], allowHosts: [], memoryBytes: null, pids: null });
    // Resumed (no --sandbox given): the stored policy holds for the next iteration too.
    const resumed = await runCli(['resume', runId, '--max-iterations', '2', '--json'], { cwd: workspace, env });
    expect(resumed.code).toBe(0);
    expect(attempts(2)).toEqual(lines);
    expect(readFileSync(join(home, '.bashrc'), 'utf8')).toBe('# original\n');
  });

  it('kill -9 of Ringmaster mid-iteration leaves no sandboxed process', { timeout: 60_000 }, async () => {
    const marker = `ringmaster-escape-${process.pid}-b`;
    const script = `echo started; setsid env -i sh -c 'while :; do sleep 1; done # ${marker}' & while :; do sleep 1; done # ${marker}`;
    const env = cleanEnv({ HOME: home, RINGMASTER_HOME: data });
    const { child, done } = startCli(['run', '--sandbox', '--sandbox-network', 'none', '--agent-command', `sh -c "${script}"`, '--prompt', 'x', '--max-iterations', '1'], { cwd: workspace, env });
    scratch.track(child);
    // The daemon runs: the sandbox is up (Ringmaster's and bwrap's own command lines hold the marker too).
    const daemon = `sh\0-c\0while :; do sleep 1; done # ${marker}`;
    await until('the sandboxed daemon runs', () => withMarker(marker).some((pid) => cmdline(pid).startsWith(daemon)));
    child.kill('SIGKILL');
    await done;
    await until('no sandboxed process is left', () => withMarker(marker).length === 0);
    expect(withMarker(marker)).toEqual([]);
  });

  it('a sandbox with memory or process caps is refused where cgroup v2 cannot enforce them (exit 64)', async () => {
    if (support.caps.ok) return;
    const r = await runCli(['run', '--sandbox', '--agent-command', 'true', '--prompt', 'x'], { cwd: workspace, env: cleanEnv({ HOME: home, RINGMASTER_HOME: data, RINGMASTER_SANDBOX_PIDS: '50' }) });
    expect(r.code).toBe(64);
    expect(r.stderr).toBe(`ringmaster run: sandbox.memory / sandbox.pids are not supported here: ${support.caps.problem ?? ''} (unset them to run without caps)\n`);
    // And doctor says so, with the same reason.
    const doctor = await runCli(['doctor'], { cwd: workspace, env: cleanEnv({ HOME: home, RINGMASTER_HOME: data }) });
    expect(doctor.stdout).toContain(`\n         caps: sandbox.memory / sandbox.pids unsupported: ${support.caps.problem ?? ''}\n`);
  });
});

it('bubblewrap is what the sandbox needs; where it is missing, --sandbox is refused with exit 64', async () => {
  const dir = scratch.temp('ringmaster-sandbox-nobwrap-');
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  // A PATH with node and git but no bwrap.
  for (const tool of ['git', 'sh']) execFileSync('ln', ['-s', execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim(), join(bin, tool)]);
  const r = await runCli(['run', '--sandbox', '--agent-command', 'true', '--prompt', 'x'], { cwd: dir, env: cleanEnv({ PATH: bin }) });
  expect(r.code).toBe(64);
  expect(r.stderr).toBe(
    'ringmaster run: --sandbox: sandboxing does not work here: bubblewrap (bwrap) is not installed; install it: sudo apt-get install bubblewrap (Debian, Ubuntu), sudo dnf install bubblewrap (Fedora), sudo pacman -S bubblewrap (Arch) (or run without --sandbox)\n',
  );
});
