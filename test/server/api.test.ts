// The REST API of a real server in this process: validation and errors, a run's life through the API, the
// max_concurrent queue, conflicts, pause/resume/stop/extend, events, logs, activity, diff, stats, OpenAPI.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runTitle } from '../../src/manager/views.js';
import { runEventSchema } from '../../src/runner/events.js';
import { cleanEnv, planAgent, runCli } from '../helpers/cli.js';
import { agentPids, startTestServer, until, useRepos, type TestServer } from './harness.js';
import { alive } from '../helpers/proc.js';

let t: TestServer | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});

const repo = useRepos();

interface RunItem { id: string; status: string; label: string | null; title: string | null; stop_reason: string | null; iterations: number; transition: string | null; last_seq: number; limits: Record<string, unknown> }

async function run(s: TestServer, id: string): Promise<{ run: RunItem; iterations: Array<{ number: number; status: string }>; checkpoints: Array<{ commit_sha: string | null }> }> {
  const r = await s.request(`/api/runs/${id}`);
  expect(r.status, r.text).toBe(200);
  return r.body as { run: RunItem; iterations: Array<{ number: number; status: string }>; checkpoints: Array<{ commit_sha: string | null }> };
}

async function finished(s: TestServer, id: string): Promise<RunItem> {
  return until(`run ${id} to end`, async () => {
    const r = (await run(s, id)).run;
    return ['completed', 'stopped', 'failed'].includes(r.status) ? r : null;
  });
}

const agentCount = (dir: string): number => (existsSync(join(dir, '.plan-agent-count')) ? Number(readFileSync(join(dir, '.plan-agent-count'), 'utf8')) : 0);

describe('POST /api/runs', () => {
  it("validates like 'ringmaster run' and answers {error: {code, message}}", async () => {
    t = await startTestServer();
    const dir = repo();
    const bad = async (body: unknown): Promise<unknown> => {
      const r = await t?.request('/api/runs', { body });
      expect(r?.status).toBe(400);
      return r?.body;
    };
    expect(await bad({})).toEqual({ error: { code: 'invalid_request', message: 'workspace: required (or repository and branch, with serve --workers external)' } });
    expect(await bad({ repository: '/srv/repo.git', branch: 'main', prompt: 'x' })).toEqual({
      error: { code: 'invalid_request', message: "repository: runs on a repository are driven by workers: start the server with '--workers external'" },
    });
    expect(await bad({ workspace: 'relative/dir', prompt: 'x' })).toEqual({ error: { code: 'invalid_request', message: "workspace: expected an absolute path, got 'relative/dir'" } });
    expect(await bad({ workspace: join(dir, 'nope'), prompt: 'x' })).toEqual({ error: { code: 'invalid_request', message: `workspace: not a directory: ${join(dir, 'nope')}` } });
    expect(await bad({ workspace: dir, prompt: 'x', max_runtime: 'soon' })).toEqual({
      error: { code: 'invalid_request', message: `flag max_runtime: loop.max_runtime: expected a duration like 90s, 5m or 4h (or 'none'), got "soon"` },
    });
    // A zero budget once meant "no limit" and dropped the server's 4h default: refused, naming 'none'.
    for (const zero of [0, '0s']) {
      expect(await bad({ workspace: dir, prompt: 'x', max_runtime: zero })).toEqual({
        error: { code: 'invalid_request', message: "flag max_runtime: loop.max_runtime: a zero duration is no time at all: write 'none' for no limit" },
      });
    }
    // Checked with the config (agent.fallback too), before anything starts: named like the other request fields.
    expect(await bad({ workspace: dir, prompt: 'x', agent: 'nobody' })).toMatchObject({ error: { code: 'invalid_request', message: expect.stringMatching(/^flag agent: agent\.name: unknown agent 'nobody' \(known: /) as string } });
    expect(await bad({ workspace: dir, prompt_file: 'MISSING.md' })).toEqual({ error: { code: 'invalid_request', message: `prompt file not found: ${join(dir, 'MISSING.md')}` } });
    expect(await bad({ workspace: dir, prompt: 'x', colour: 'red' })).toEqual({ error: { code: 'invalid_request', message: 'Unrecognized key: "colour"' } });
    expect(await t.request('/api/runs', { body: '{"workspace":' })).toMatchObject({ status: 400, body: { error: { code: 'invalid_request' } } });
  });

  it('runs a loop to completion with manager defaults; detail, events, logs, activity, stats', async () => {
    t = await startTestServer();
    const dir = repo();
    const created = await t.request('/api/runs', { body: { workspace: dir, prompt: 'work', agent_command: planAgent('ok,complete'), cooldown: 0 } });
    expect(created.status, created.text).toBe(201);
    const { id, status } = created.body as { id: string; status: string };
    expect(status).toBe('running');
    const end = await finished(t, id);
    expect(end).toMatchObject({ status: 'completed', stop_reason: 'success_signal', iterations: 2, transition: null, label: 'prompt', title: 'work', limits: { max_iterations: 100, max_runtime_ms: 14_400_000, max_cost_usd: 300, failure_threshold: 5 } });
    const detail = await run(t, id);
    expect(detail.iterations.map((i) => [i.number, i.status])).toEqual([[1, 'success'], [2, 'complete']]);
    expect(detail.checkpoints.at(-1)?.commit_sha).toMatch(/^[0-9a-f]{40}$/);

    const events = (await t.request(`/api/runs/${id}/events`)).body as { events: unknown[]; last_seq: number };
    const parsed = events.events.map((e) => runEventSchema.parse(e));
    expect(parsed.map((e) => e.seq)).toEqual(parsed.map((_, i) => i + 1));
    expect(parsed[0]).toMatchObject({ type: 'run_queued', run_id: id });
    // A new run starts: it is not resumed (it once said resumed: true, being taken from the queue).
    expect(parsed.filter((e) => e.type === 'run_started').map((e) => e.resumed)).toEqual([false]);
    expect(parsed.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed' });
    expect(events.last_seq).toBe(parsed.length);
    expect(end.last_seq).toBe(parsed.length);
    const after = (await t.request(`/api/runs/${id}/events?after_seq=${parsed.length - 2}`)).body as { events: Array<{ seq: number }> };
    expect(after.events.map((e) => e.seq)).toEqual([parsed.length - 1, parsed.length]);

    expect((await t.request(`/api/runs/${id}/logs?iteration=1`)).body).toMatchObject({ iteration: 1, offset: 0, text: 'working on iteration 1\n', complete: true, next_offset: 23, size: 23 });
    expect((await t.request(`/api/runs/${id}/logs?iteration=1&offset=8&limit=3`)).body).toMatchObject({ text: 'on ', next_offset: 11, complete: false });
    expect((await t.request(`/api/runs/${id}/logs?iteration=9`)).status).toBe(404);
    expect((await t.request(`/api/runs/${id}/activity?iteration=2`)).body).toEqual({
      activity: [{ kind: 'output', iteration: 2, time: expect.any(Number) as number, stream: 'stdout', offset: 0, text: 'all done <promise>COMPLETE</promise>\n' }],
      truncated: false,
      next_offset: 37,
      next_index: 0,
    });
    // The store says completed a moment before the manager has let the run go (its recorder closing).
    const stats = await until('the manager to let the run go', async () => {
      const body = (await t?.request('/api/stats'))?.body as Record<string, unknown> | undefined;
      return body?.driving === 0 ? body : null;
    });
    expect(stats).toMatchObject({ total_active: 0, running: 0, max_concurrent: 5, driving: 0 });
    const list = (await t.request(`/api/runs?workspace=${encodeURIComponent(dir)}&status=completed,failed`)).body as { runs: Array<{ id: string }>; total: number };
    expect([list.runs.map((r) => r.id), list.total]).toEqual([[id], 1]);
    expect((await t.request('/api/runs?status=bogus')).status).toBe(400);
    expect((await t.request('/api/runs/zzzz')).body).toEqual({ error: { code: 'not_found', message: "no run 'zzzz'" } });
  });

  it('shows the diff of a checkpoint', async () => {
    t = await startTestServer();
    const dir = repo();
    const { id } = (await t.request('/api/runs', { body: { workspace: dir, prompt: 'work', agent_command: planAgent('ok'), max_iterations: 1, checkpoint_interval: 1 } })).body as { id: string };
    await finished(t, id);
    const sha = (await run(t, id)).checkpoints.at(-1)?.commit_sha ?? '';
    const diff = await t.request(`/api/runs/${id}/checkpoints/${sha.slice(0, 12)}/diff`);
    expect(diff.status).toBe(200);
    expect(diff.text).toContain('diff --git a/.plan-agent-count b/.plan-agent-count\nnew file mode 100644');
    expect((await t.request(`/api/runs/${id}/checkpoints/${'a'.repeat(40)}/diff`)).status).toBe(404);
  });

  it("shows what one iteration changed, from the trees stored on it; the same through 'ringmaster diff'", async () => {
    t = await startTestServer();
    const dir = repo();
    const { id } = (await t.request('/api/runs', { body: { workspace: dir, prompt: 'work', agent_command: planAgent('ok'), max_iterations: 2, checkpoint_interval: 0 } })).body as { id: string };
    await finished(t, id);
    const second = await t.request(`/api/runs/${id}/iterations/2/diff`);
    expect([second.status, second.text]).toEqual([
      200,
      [
        'diff --git a/.plan-agent-count b/.plan-agent-count',
        'index 56a6051..d8263ee 100644',
        '--- a/.plan-agent-count',
        '+++ b/.plan-agent-count',
        '@@ -1 +1 @@',
        '-1',
        '\\ No newline at end of file',
        '+2',
        '\\ No newline at end of file',
        'diff --git a/.plan-agent-prompt-2 b/.plan-agent-prompt-2',
        'new file mode 100644',
        'index 0000000..a340c10',
        '--- /dev/null',
        '+++ b/.plan-agent-prompt-2',
        '@@ -0,0 +1 @@',
        '+work',
        '\\ No newline at end of file',
        '',
      ].join('\n'),
    ]);
    const cli = await runCli(['diff', id, '--iteration', '2'], { cwd: dir, env: { ...cleanEnv(), RINGMASTER_HOME: t.home } });
    expect([cli.code, cli.stdout]).toEqual([0, second.text]);
    expect((await t.request(`/api/runs/${id}/iterations/3/diff`)).body).toEqual({ error: { code: 'not_found', message: `run ${id} has no iteration 3` } });
    expect((await t.request(`/api/runs/zzzz/iterations/1/diff`)).body).toEqual({ error: { code: 'not_found', message: "no run 'zzzz'" } });
    expect((await t.request(`/api/runs/${id}/iterations/0/diff`)).status).toBe(400);
    expect((await t.request(`/api/runs/${id}/iterations/2/diff`, { anonymous: true })).status).toBe(401);
  });
});

describe('run titles', () => {
  it('are the first line of an inline prompt (shortened), else the label', () => {
    expect(runTitle('\n  Fix the flaky tests  \nthen more', 'prompt')).toBe('Fix the flaky tests');
    expect(runTitle('x'.repeat(200), 'prompt')).toBe(`${'x'.repeat(119)}…`);
    expect(runTitle(null, 'PROMPT.md')).toBe('PROMPT.md');
    expect(runTitle('  \n', 'prompt')).toBe('prompt');
  });
});

describe('the manager', () => {
  it('queues runs beyond max_concurrent and starts them first in, first out', async () => {
    t = await startTestServer({ maxConcurrent: 1 });
    const dirs3 = [repo(), repo(), repo()];
    const ids: string[] = [];
    for (const dir of dirs3) {
      const r = await t.request('/api/runs', { body: { workspace: dir, prompt: 'work', agent_command: planAgent('gate,complete'), cooldown: 0, checkpoint_interval: 0 } });
      ids.push((r.body as { id: string }).id);
      expect((r.body as { status: string }).status).toBe(ids.length === 1 ? 'running' : 'pending');
    }
    await until('one running, two pending', async () => {
      const stats = (await t?.request('/api/stats'))?.body as { running: number; pending: number; driving: number };
      return stats.running === 1 && stats.pending === 2 && stats.driving === 1 ? true : null;
    });
    for (const [i, dir] of dirs3.entries()) {
      await until(`run ${i + 1} to start`, () => (agentCount(dir) === 1 ? true : null));
      for (const other of dirs3.slice(i + 1)) expect(agentCount(other)).toBe(0);
      writeFileSync(join(dir, '.gate-1'), '');
      expect(await finished(t, ids[i] ?? '')).toMatchObject({ status: 'completed' });
    }
  });

  it('refuses a second active run in a workspace (409) unless it uses a worktree', async () => {
    t = await startTestServer();
    const dir = repo();
    const first = await t.request('/api/runs', { body: { workspace: dir, prompt: 'work', agent_command: planAgent('gate,complete'), checkpoint_interval: 0 } });
    const second = await t.request('/api/runs', { body: { workspace: dir, prompt: 'work', agent_command: planAgent('ok') } });
    expect(second.status).toBe(409);
    expect(second.body).toEqual({
      error: { code: 'conflict', message: expect.stringMatching(new RegExp(`^workspace ${dir} already has an active run \\(${(first.body as { id: string }).id}, (pending|running)\\); use a worktree or stop it first$`)) as string },
    });
    const tree = await t.request('/api/runs', { body: { workspace: dir, prompt: 'work', agent_command: planAgent('ok'), max_iterations: 1, worktree: true } });
    expect(tree.status, tree.text).toBe(201);
    expect(await finished(t, (tree.body as { id: string }).id)).toMatchObject({ status: 'completed', stop_reason: 'max_iterations' });
    writeFileSync(join(dir, '.gate-1'), '');
    await finished(t, (first.body as { id: string }).id);
  });

  it('pauses after the current iteration, resumes, extends the limit, and stops (process group gone)', async () => {
    t = await startTestServer();
    const dir = repo();
    const { id } = (await t.request('/api/runs', { body: { workspace: dir, prompt: 'w', agent_command: planAgent('gate,gate,grandchild'), max_iterations: 2, cooldown: 0, checkpoint_interval: 0 } })).body as { id: string };
    await until('iteration 1', () => (agentCount(dir) === 1 ? true : null));
    expect((await t.request(`/api/runs/${id}/pause`, { method: 'POST' })).body).toMatchObject({ answer: 'accepted', status: 'running', transition: 'pausing' });
    expect((await t.request(`/api/runs/${id}/pause`, { method: 'POST' })).body).toMatchObject({ answer: 'already' });
    writeFileSync(join(dir, '.gate-1'), '');
    await until('paused', async () => ((await run(t as TestServer, id)).run.status === 'paused' ? true : null));
    expect(agentCount(dir)).toBe(1);
    expect((await t.request(`/api/runs/${id}/resume`, { method: 'POST' })).body).toMatchObject({ answer: 'accepted' });
    await until('iteration 2', () => (agentCount(dir) === 2 ? true : null));
    expect((await t.request(`/api/runs/${id}/extend`, { body: { iterations: 1 } })).body).toMatchObject({ answer: 'accepted' });
    expect((await run(t, id)).run.limits.max_iterations).toBe(3);
    writeFileSync(join(dir, '.gate-2'), '');
    const pids = await until('the grandchild', () => agentPids(dir));
    const stop = (await t.request(`/api/runs/${id}/stop`, { method: 'POST' })).body as { answer: string; transition: string | null };
    expect(stop).toMatchObject({ answer: 'accepted', transition: 'stopping' });
    expect(await finished(t, id)).toMatchObject({ status: 'stopped', stop_reason: 'user_stop', iterations: 3, transition: null });
    for (const pid of pids) expect(alive(pid), `process ${pid}`).toBe(false);
    expect((await t.request(`/api/runs/${id}/pause`, { method: 'POST' })).body).toMatchObject({ answer: 'not_running', status: 'stopped' });
    expect((await t.request(`/api/runs/${id}/extend`, { body: { iterations: 0 } })).status).toBe(400);
  });

  it('pause?now=true suspends the running agent at once (paused mid-iteration); resume continues it', async () => {
    t = await startTestServer();
    const dir = repo();
    const { id } = (await t.request('/api/runs', { body: { workspace: dir, prompt: 'w', agent_command: planAgent('gate,complete'), max_iterations: 3, cooldown: 0, checkpoint_interval: 0 } })).body as { id: string };
    await until('iteration 1', () => (agentCount(dir) === 1 ? true : null));
    expect((await t.request(`/api/runs/${id}/resume?now=true`, { method: 'POST' })).body).toEqual({ error: { code: 'invalid_request', message: 'now: only a pause can be immediate, not resume' } });
    expect((await t.request(`/api/runs/${id}/pause?now=true`, { method: 'POST' })).body).toMatchObject({ answer: 'accepted', status: 'paused', transition: null });
    const { events } = (await t.request(`/api/runs/${id}/events`)).body as { events: Array<{ type: string }> };
    expect(events.find((e) => e.type === 'paused')).toMatchObject({ after_iteration: 0, suspended: true, by: 'user' });
    expect((await t.request(`/api/runs/${id}/resume`, { method: 'POST' })).body).toMatchObject({ answer: 'accepted' });
    writeFileSync(join(dir, '.gate-1'), '');
    expect(await finished(t, id)).toMatchObject({ status: 'completed', stop_reason: 'success_signal', iterations: 2 });
  });
});

describe('the OpenAPI document', () => {
  it('describes every endpoint from the schemas', async () => {
    t = await startTestServer();
    const doc = (await t.request('/api/openapi.json')).body as { openapi: string; paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/api/agents',
      '/api/budget',
      '/api/health',
      '/api/runs',
      '/api/runs/{id}',
      '/api/runs/{id}/activity',
      '/api/runs/{id}/checkpoints/{sha}/diff',
      '/api/runs/{id}/events',
      '/api/runs/{id}/extend',
      '/api/runs/{id}/iterations/{n}/diff',
      '/api/runs/{id}/logs',
      '/api/runs/{id}/notes',
      '/api/runs/{id}/notes/{noteId}',
      '/api/runs/{id}/rollback',
      '/api/runs/{id}/search',
      '/api/runs/{id}/{action}',
      '/api/sign-out',
      '/api/stats',
    ]);
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['RunItem', 'RunRequest', 'Iteration', 'Checkpoint', 'Error', 'Stats', 'SearchResult']));
  });
});

