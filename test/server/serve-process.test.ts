// `ringmaster serve` as a real process: SIGTERM interrupts its runs and exits; kill -9 and a restart resume the
// runs it was driving (their left-over agents killed), or with --no-resume leave them stopped to resume by hand.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, planAgent, runCli, startCli } from '../helpers/cli.js';
import { agentPids, until, useRepos } from './harness.js';
import { alive, childrenNamed, parentOf } from '../helpers/proc.js';


const repo = useRepos();
const homes: string[] = [];
/** Servers started, each leading its own process group: a failed test must not leave one (and its helpers) running. */
const groups: number[] = [];
afterAll(() => {
  for (const group of groups) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

/** A data directory for one test's servers (they share it across restarts). */
function tempHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'ringmaster-serve-'));
  homes.push(home);
  return home;
}

interface Served {
  cli: ReturnType<typeof startCli>;
  base: string;
  stdout(): string;
}

const TOKEN = 'serve-process-token';
const envOf = (home: string, token: string | null = TOKEN) =>
  cleanEnv({ RINGMASTER_HOME: home, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', ...(token === null ? {} : { RINGMASTER_TOKEN: token }) });

/** Starts `ringmaster serve --port 0` over `home` (RINGMASTER_TOKEN set unless `token` is null); resolves once it prints its address. */
async function serve(home: string, ...extra: string[]): Promise<Served> {
  return serveWith(home, TOKEN, ...extra);
}

async function serveWith(home: string, token: string | null, ...extra: string[]): Promise<Served> {
  // Its own process group, as a terminal's foreground job: Ctrl+C is SIGINT to the whole group (its helpers too).
  const cli = startCli(['serve', '--port', '0', ...extra], { cwd: home, env: envOf(home, token), detached: true });
  if (cli.child.pid !== undefined) groups.push(cli.child.pid);
  let out = '';
  cli.child.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const base = await until('the server address', () => /serving on (http:\/\/\S+)/.exec(out)?.[1] ?? null);
  return { cli, base, stdout: () => out };
}

async function api(base: string, path: string, body?: unknown): Promise<unknown> {
  const auth = { authorization: `Bearer ${TOKEN}` };
  const r = await fetch(`${base}${path}`, body === undefined ? { headers: auth } : { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return r.json();
}

interface Detail { run: { status: string; stop_reason: string | null; iterations: number }; iterations: Array<{ number: number; status: string }> }

const agentCount = (dir: string): number => (existsSync(join(dir, '.plan-agent-count')) ? Number(readFileSync(join(dir, '.plan-agent-count'), 'utf8')) : 0);


describe('ringmaster serve', () => {
  it('kill -9, then a restart resumes the runs it drove: left-over agent killed, the iteration interrupted, numbering and totals go on', async () => {
    const home = tempHome();
    const dir = repo();
    const first = await serve(home);
    const { id } = (await api(first.base, '/api/runs', { workspace: dir, prompt: 'w', agent_command: planAgent('grandchild,complete'), cooldown: 0, checkpoint_interval: 0 })) as { id: string };
    const pids = await until('the agent', () => agentPids(dir));
    first.cli.child.kill('SIGKILL');
    await first.cli.done;
    for (const pid of pids) expect(alive(pid), `agent ${pid} survives the server until the restart`).toBe(true);

    const second = await serve(home);
    const detail = await until('the run to end', async () => {
      const d = (await api(second.base, `/api/runs/${id}`)) as Detail;
      return d.run.status === 'completed' ? d : null;
    });
    for (const pid of pids) expect(alive(pid), `left-over agent ${pid}`).toBe(false);
    expect(detail.run).toMatchObject({ status: 'completed', stop_reason: 'success_signal', iterations: 2 });
    expect(detail.iterations.map((i) => [i.number, i.status])).toEqual([[1, 'interrupted'], [2, 'complete']]);
    expect(agentCount(dir)).toBe(2);
    second.cli.child.kill('SIGTERM');
    expect((await second.cli.done).code).toBe(0);
  }, 60_000);

  it('Ctrl+C (SIGINT to its whole process group, iteration helpers included) interrupts the runs and exits, nothing left running', async () => {
    const home = tempHome();
    const dir = repo();
    const first = await serve(home);
    const group = first.cli.child.pid ?? 0;
    // The helpers have loaded (their title is set as their module runs): the run's agent is spawned by one of them.
    const helpers = await until('the iteration helpers', () => {
      const found = childrenNamed(group, 'ringmaster-iter');
      return found.length === 2 ? found : null;
    });
    const { id } = (await api(first.base, '/api/runs', { workspace: dir, prompt: 'w', agent_command: planAgent('grandchild,complete'), cooldown: 0, checkpoint_interval: 0 })) as { id: string };
    const pids = await until('the agent', () => agentPids(dir));
    expect(helpers).toContain(parentOf(pids[0] ?? 0));
    process.kill(-group, 'SIGINT');
    const ended = await first.cli.done;
    expect(ended.code).toBe(0);
    expect(ended.stdout).toContain('Received SIGINT: interrupting the runs (each can be resumed) and stopping...\nStopped.\n');
    for (const pid of [...pids, ...helpers]) expect(alive(pid), `process ${pid}`).toBe(false);
    const held = await serve(home, '--no-resume');
    const detail = (await api(held.base, `/api/runs/${id}`)) as Detail;
    expect(detail.run).toMatchObject({ status: 'stopped', stop_reason: 'interrupted', iterations: 1 });
    expect(detail.iterations.map((i) => [i.number, i.status])).toEqual([[1, 'interrupted']]);
    held.cli.child.kill('SIGTERM');
    await held.cli.done;
  }, 60_000);

  it('SIGTERM interrupts the runs and exits; a restart with --no-resume leaves them stopped, a later one resumes them', async () => {
    const home = tempHome();
    const dir = repo();
    const first = await serve(home);
    const { id } = (await api(first.base, '/api/runs', { workspace: dir, prompt: 'w', agent_command: planAgent('hang,complete'), cooldown: 0, checkpoint_interval: 0 })) as { id: string };
    await until('iteration 1', () => (agentCount(dir) === 1 ? true : null));
    first.cli.child.kill('SIGTERM');
    const ended = await first.cli.done;
    expect(ended.code).toBe(0);
    expect(ended.stdout).toContain('Received SIGTERM: interrupting the runs (each can be resumed) and stopping...\nStopped.\n');

    const held = await serve(home, '--no-resume');
    expect(((await api(held.base, `/api/runs/${id}`)) as Detail).run).toMatchObject({ status: 'stopped', stop_reason: 'interrupted', iterations: 1 });
    held.cli.child.kill('SIGTERM');
    await held.cli.done;

    const resumed = await serve(home);
    const detail = await until('the run to end', async () => {
      const d = (await api(resumed.base, `/api/runs/${id}`)) as Detail;
      return d.run.status === 'completed' ? d : null;
    });
    expect(detail.iterations.map((i) => [i.number, i.status])).toEqual([[1, 'interrupted'], [2, 'complete']]);
    resumed.cli.child.kill('SIGTERM');
    await resumed.cli.done;
  }, 60_000);

  /**
   * A run paused (or asked to pause) in a first server, which `stop` ends; a second server over the same data
   * directory brings it back paused (no iteration starts), and resumed it completes with `iterations`.
   */
  async function comesBackPaused(stop: (first: Served, dir: string, id: string) => Promise<void>, iterations: Array<[number, string]>): Promise<void> {
    const home = tempHome();
    const dir = repo();
    const first = await serve(home);
    const { id } = (await api(first.base, '/api/runs', { workspace: dir, prompt: 'w', agent_command: planAgent('gate,complete'), cooldown: 0, checkpoint_interval: 0 })) as { id: string };
    await until('iteration 1', () => (agentCount(dir) === 1 ? true : null));
    expect(await api(first.base, `/api/runs/${id}/pause`, {})).toMatchObject({ transition: 'pausing' });
    await stop(first, dir, id);
    const second = await serve(home);
    await until('paused again', async () => (((await api(second.base, `/api/runs/${id}`)) as Detail).run.status === 'paused' ? true : null));
    expect(agentCount(dir)).toBe(1);
    await api(second.base, `/api/runs/${id}/resume`, {});
    const detail = await until('the end', async () => {
      const d = (await api(second.base, `/api/runs/${id}`)) as Detail;
      return d.run.status === 'completed' ? d : null;
    });
    expect(detail.iterations.map((i) => [i.number, i.status])).toEqual(iterations);
    second.cli.child.kill('SIGTERM');
    await second.cli.done;
  }

  /** Lets iteration 1 end (the run pauses after it), then stops the server with `signal`. */
  const pausedThen = (signal: NodeJS.Signals) => async (first: Served, dir: string, id: string): Promise<void> => {
    writeFileSync(join(dir, '.gate-1'), '');
    await until('paused', async () => (((await api(first.base, `/api/runs/${id}`)) as Detail).run.status === 'paused' ? true : null));
    first.cli.child.kill(signal);
    await first.cli.done;
  };

  it.each([['died (kill -9)', 'SIGKILL'], ['stopped (SIGTERM)', 'SIGTERM']] as const)('a run paused when the server %s comes back paused', (_how, signal) =>
    comesBackPaused(pausedThen(signal), [[1, 'success'], [2, 'complete']]), 60_000);

  it('a run asked to pause when the server stopped (SIGTERM, mid-iteration) comes back paused', () =>
    comesBackPaused(async (first) => {
      first.cli.child.kill('SIGTERM');
      expect((await first.cli.done).code).toBe(0);
    }, [[1, 'interrupted'], [2, 'complete']]), 60_000);

  it('cannot listen (its port taken by another server, an unknown host) or a token too short: one line saying why, exit 64; the first server unharmed, its runs linking to it', async () => {
    const first = await serve(tempHome());
    try {
      const port = new URL(first.base).port;
      const home = tempHome();
      const taken = await runCli(['serve', '--port', port], { cwd: home, env: envOf(home) });
      expect(taken).toMatchObject({
        code: 64,
        stderr: `ringmaster serve: cannot listen on 127.0.0.1:${port}: the port is in use (another 'ringmaster serve'?): choose another with --port, or 0 for any free one (EADDRINUSE)\n`,
      });
      expect(await runCli(['serve', '--port', '0'], { cwd: home, env: envOf(home, 'short') })).toMatchObject({
        code: 64,
        stderr: "ringmaster serve: RINGMASTER_TOKEN is 5 characters: a server token needs at least 16 (e.g. 'openssl rand -hex 16'), or leave it unset for a generated one\n",
      });
      const unknown = await runCli(['serve', '--port', '0', '--host', 'no-such-host.invalid'], { cwd: home, env: envOf(home) });
      expect(unknown.code).toBe(64);
      expect(unknown.stderr).toMatch(/^ringmaster serve: cannot listen on no-such-host\.invalid:0: .* \((ENOTFOUND|EAI_AGAIN)\)\n$/);
      // The first server still answers; the runs it creates link to it, on the port it was given (0: the one it got).
      expect(await api(first.base, '/api/health')).toMatchObject({ ok: true });
      const { id } = (await api(first.base, '/api/runs', { workspace: repo(), prompt: 'w', agent_command: planAgent('complete'), checkpoint_interval: 0 })) as { id: string };
      expect(((await api(first.base, `/api/runs/${id}`)) as { run: { spec: { notify: { publicUrl: string } } } }).run.spec.notify.publicUrl).toBe(first.base);
    } finally {
      first.cli.child.kill('SIGTERM');
      await first.cli.done;
    }
  }, 60_000);

  it('asks a credential: a one-time sign-in link at start, --sign-in-link beside it, --new-token ends every session; --no-auth on loopback only', async () => {
    const home = tempHome();
    const first = await serveWith(home, null);
    await until('the sign-in lines', () => (/scripts send .*\n/.test(first.stdout()) ? true : null));
    const link = /sign in: (http:\/\/\S+\/sign-in\?code=\S+)/.exec(first.stdout())?.[1] ?? '';
    expect(first.stdout()).toContain("    (used once, valid 5 minutes; 'ringmaster serve --sign-in-link' prints a new one)\n");
    const token = /token \(shown once, stored hashed in \S+\): (\S+)/.exec(first.stdout())?.[1] ?? '';
    expect((await fetch(`${first.base}/api/health`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await fetch(`${first.base}/api/health`)).status).toBe(401);
    const signIn = async (url: string): Promise<string> => {
      const r = await fetch(url, { redirect: 'manual' });
      expect(r.status, url).toBe(303);
      return (r.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    };
    const cookie = await signIn(link);
    expect((await fetch(`${first.base}/api/runs`, { headers: { cookie } })).status).toBe(200);
    // Beside it, a fresh link (printed there, not in the server's log).
    const beside = await runCli(['serve', '--sign-in-link'], { cwd: home, env: envOf(home, null) });
    expect(beside.code).toBe(0);
    expect(beside.stdout).toMatch(new RegExp(`^${first.base}/sign-in\\?code=[A-Za-z0-9_-]{43}\n$`));
    const second = await signIn(beside.stdout.trim());
    first.cli.child.kill('SIGTERM');
    const ended = await first.cli.done;
    expect(ended.stderr).not.toContain('code=');
    // A restart keeps the sessions; --new-token ends them all (and the old token).
    const again = await serveWith(home, null);
    expect((await fetch(`${again.base}/api/runs`, { headers: { cookie: second.replace(/_\d+=/, `_${new URL(again.base).port}=`) } })).status).toBe(200);
    again.cli.child.kill('SIGTERM');
    await again.cli.done;
    const renewed = await serveWith(home, null, '--new-token');
    const port = new URL(renewed.base).port;
    for (const c of [cookie, second]) expect((await fetch(`${renewed.base}/api/runs`, { headers: { cookie: c.replace(/_\d+=/, `_${port}=`) } })).status).toBe(401);
    expect((await fetch(`${renewed.base}/api/health`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    renewed.cli.child.kill('SIGTERM');
    await renewed.cli.done;
    const none = await runCli(['serve', '--sign-in-link'], { cwd: home, env: envOf(home, null) });
    expect(none).toMatchObject({ code: 64, stdout: '' });
    expect(none.stderr).toContain(`no 'ringmaster serve' is running over the data directory ${home}`);

    const open = await serveWith(home, null, '--no-auth');
    await until('the warning', () => (open.stdout().includes('WARNING') ? true : null));
    expect(open.stdout()).toContain('  WARNING: --no-auth: no credential is asked; every account on this machine can drive this server\n');
    expect((await fetch(`${open.base}/api/health`)).status).toBe(200);
    open.cli.child.kill('SIGTERM');
    await open.cli.done;
    const refused = await runCli(['serve', '--port', '0', '--host', '0.0.0.0', '--no-auth'], { cwd: home, env: envOf(home, null) });
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain('--no-auth: only a loopback address may be served without a credential (not 0.0.0.0)');
  }, 60_000);
});
