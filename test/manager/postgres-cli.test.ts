// The real CLI on a shared PostgreSQL store (RINGMASTER_DATABASE_URL or `database.url`): runs recorded in the
// database, seen and controlled from "another machine" (another process with its own data directory and no
// SQLite store), the password never printed.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { databasePath } from '../../src/store/paths.js';
import { tempRepo } from '../git/git-repo.js';
import { cleanEnv, normalise, planAgent, runCli, startCli } from '../helpers/cli.js';
import { usePostgres } from '../helpers/postgres.js';
import { useScratch } from '../helpers/scratch.js';
import { until } from '../helpers/until.js';

const pg = usePostgres();
const scratch = useScratch();
const temp = (prefix: string): string => scratch.temp(prefix);

/** A machine: its own data directory (logs, locks) and config dir, the shared database by env. */
function machine(url: string): Record<string, string> {
  return cleanEnv({ RINGMASTER_HOME: temp('rm-pg-home-'), RINGMASTER_DATABASE_URL: url, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' });
}

function repo(): string {
  const dir = tempRepo({ 'README.md': 'hello\n' });
  scratch.adopt(dir);
  return dir;
}

function agentCount(dir: string): number {
  return existsSync(join(dir, '.plan-agent-count')) ? Number(readFileSync(join(dir, '.plan-agent-count'), 'utf8')) : 0;
}

async function withStore<T>(url: string, fn: (store: PostgresStore) => Promise<T>): Promise<T> {
  const store = await PostgresStore.open(url);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

describe('the CLI on a PostgreSQL store', () => {
  it('records a run in the database; another machine lists and shows it; no SQLite database is made', async () => {
    const url = await pg.cluster.createDatabase();
    const a = machine(url);
    const dir = repo();
    const r = await runCli(['run', '--prompt', 'work', '--agent-command', planAgent('ok,complete'), '--checkpoint-interval', '0'], { cwd: dir, env: a });
    expect(r.code, r.stderr).toBe(0);
    const [row] = await withStore(url, (store) => store.listRuns());
    expect(row).toMatchObject({ status: 'completed', stop_reason: 'success_signal', totals: { iterations: 2 } });
    expect(existsSync(databasePath(a.RINGMASTER_HOME!))).toBe(false);

    const b = machine(url);
    const listed = await runCli(['runs', '--all', '--json'], { cwd: temp('rm-pg-elsewhere-'), env: b });
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as Array<{ id: string; status: string }>).map((x) => [x.id, x.status])).toEqual([[row?.id, 'completed']]);
    const shown = await runCli(['show', row?.id ?? '', '--json'], { cwd: dir, env: b });
    expect(shown.code, shown.stderr).toBe(0);
    expect((JSON.parse(shown.stdout) as { iterations: Array<{ status: string }> }).iterations.map((i) => i.status)).toEqual(['success', 'complete']);
  }, 60_000);

  it('pauses, resumes and stops a live run from another machine within a second, and the stopped run resumes there', async () => {
    const url = await pg.cluster.createDatabase();
    const a = machine(url);
    const b = machine(url);
    const dir = repo();
    const running = startCli(['run', '--prompt', 'work', '--agent-command', planAgent('gate,gate,gate,complete'), '--max-iterations', '6', '--checkpoint-interval', '0'], { cwd: dir, env: a });
    scratch.track(running.child);
    const run = await until('the run row', () => withStore(url, async (store) => (await store.listRuns())[0] ?? null));
    await until('iteration 1', () => agentCount(dir) === 1);

    const pause = await runCli(['pause', run.id], { cwd: dir, env: b });
    expect(pause).toMatchObject({ code: 0, stdout: `asked run ${run.id} to pause: it pauses after its current iteration\n` });
    writeFileSync(join(dir, '.gate-1'), '');
    await until('paused', () => withStore(url, async (store) => (await store.getRun(run.id))?.status === 'paused'));
    expect(await runCli(['resume', run.id], { cwd: dir, env: b })).toMatchObject({ code: 0, stdout: `resumed run ${run.id}\n` });
    await until('iteration 2', () => agentCount(dir) === 2);

    const asked = Date.now();
    const stop = await runCli(['stop', run.id], { cwd: dir, env: b });
    expect(stop.stdout).toContain(`run ${run.id} stopped (stopped, user_stop)\n`);
    const ended = await running.done;
    expect(ended.code).toBe(130);
    expect(Date.now() - asked).toBeLessThan(30_000);
    expect(normalise(ended.stdout)).toContain('[T] Paused (by user) after iteration 1\n[T] Resumed\n');

    // The other machine resumes the stopped run: it continues with iteration 3 in the same workspace.
    const resuming = startCli(['resume', run.id], { cwd: dir, env: b });
    scratch.track(resuming.child);
    await until('iteration 3', () => agentCount(dir) === 3);
    writeFileSync(join(dir, '.gate-3'), '');
    const resumed = await resuming.done;
    expect(resumed.code, resumed.stderr).toBe(0);
    await withStore(url, async (store) => {
      expect((await store.listIterations(run.id)).map((i) => [i.number, i.status])).toEqual([[1, 'success'], [2, 'interrupted'], [3, 'success'], [4, 'complete']]);
      const seqs = (await store.listEvents(run.id)).map((e) => e.seq);
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    });
  }, 90_000);

  it('takes the URL from database.url in the config file, and config show hides the password', async () => {
    const url = await pg.cluster.createDatabase();
    const config = temp('rm-pg-config-');
    mkdirSync(join(config, 'ringmaster'));
    writeFileSync(join(config, 'ringmaster', 'config.yml'), `database:\n  url: ${url}\n`);
    const env = cleanEnv({ RINGMASTER_HOME: temp('rm-pg-home-'), XDG_CONFIG_HOME: config, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' });
    const dir = repo();
    const r = await runCli(['run', '--prompt', 'work', '--agent-command', planAgent('complete'), '--checkpoint-interval', '0'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(await withStore(url, (store) => store.countRuns())).toBe(1);
    const shown = await runCli(['config', 'show'], { cwd: dir, env });
    const password = decodeURIComponent(new URL(url).password);
    expect(shown.stdout).toContain(`postgres://ringmaster:***@127.0.0.1:${pg.cluster.port}/`);
    expect(shown.stdout).not.toContain(password);
  }, 60_000);

  it('says which database it cannot reach, without the password', async () => {
    const env = cleanEnv({ RINGMASTER_HOME: temp('rm-pg-home-'), RINGMASTER_DATABASE_URL: 'postgres://me:hunter2@127.0.0.1:1/nope' });
    const r = await runCli(['runs'], { cwd: repo(), env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^ringmaster runs: opening the PostgreSQL store postgres:\/\/me:\*\*\*@127\.0\.0\.1:1\/nope: database unavailable: connect ECONNREFUSED 127\.0\.0\.1:1\n$/);
  }, 30_000);
});

