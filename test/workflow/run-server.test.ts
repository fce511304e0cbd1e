// A workflow run seen and continued through `ringmaster serve`'s API: its kind and metadata in the run's
// detail, and a resume from the API that rebuilds the workflow program from the stored run.
import { afterEach, expect, it } from 'vitest';
import { startTestServer, until, type TestServer } from '../server/harness.js';
import { agentRuns, runWorkflow, SCRIPT_AGENT, workspace } from './run-harness.js';

let t: TestServer | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});

interface Detail {
  run: { id: string; status: string; stop_reason: string | null; kind: string; meta: Record<string, unknown> };
  iterations: Array<{ number: number; status: string; unit_id: string | null }>;
  units: Array<{ id: string; title: string | null; status: string | null; iterations: number; cost_usd: number }>;
}

it('the API shows a workflow run with its metadata, and POST /resume continues it with the workflow program', async () => {
  t = await startTestServer();
  const server = t;
  const dir = workspace({ fix: 'name: fix\nloop:\n  until: COMPLETE\n  max_iterations: 5\nprompt: go\n' }, [{ say: 'one\n' }, { say: 'boom\n', exit: 1 }, { say: '<promise>COMPLETE</promise>\n' }]);
  const cli = await runWorkflow(dir, ['fix', '--json'], { RINGMASTER_HOME: server.home });
  expect(cli.code).toBe(1);
  const id = (JSON.parse(cli.stdout.split('\n')[0] ?? '{}') as { run_id: string }).run_id;

  const failed = (await server.request(`/api/runs/${id}`)).body as Detail;
  expect(failed.run).toMatchObject({ status: 'failed', stop_reason: 'fatal_error', kind: 'workflow', meta: { workflow: 'fix', workflow_kind: 'loop', iteration_count: 2, max_iterations: 5 } });

  expect((await server.request(`/api/runs/${id}/resume`, { method: 'POST' })).body).toMatchObject({ answer: 'accepted' });
  // The stored status is still `failed` until the server has claimed the run: wait for its agent first.
  await until('the resumed iteration', () => (agentRuns(dir) === 3 ? true : null));
  const done = await until('the resumed run to end', async () => {
    const d = (await server.request(`/api/runs/${id}`)).body as Detail;
    return ['completed', 'failed', 'stopped'].includes(d.run.status) ? d : null;
  });
  expect(done.run).toMatchObject({ status: 'completed', stop_reason: 'success_signal', meta: { iteration_count: 3, current_step: null } });
  expect(done.iterations.map((i) => [i.number, i.status, i.unit_id])).toEqual([
    [1, 'success', 'fix'],
    [2, 'failure', 'fix'],
    [3, 'complete', 'fix'],
  ]);
  // The steps (the dashboard's units and meta.steps) are put back from the stored definition and the iterations.
  expect(done.units).toEqual([{ id: 'fix', title: 'fix', status: 'completed', iterations: 3, cost_usd: 0 }]);
  expect(done.run.meta).toMatchObject({ steps: [{ name: 'fix', status: 'completed', iterations: 3, max_iterations: 5, message: 'Loop complete: fix (3 iterations)' }], definition: { steps: [{ name: 'fix' }] } });
  const list = (await server.request('/api/runs')).body as { runs: Array<{ id: string; meta: Record<string, unknown> }> };
  expect(list.runs.find((r) => r.id === id)?.meta).not.toHaveProperty('steps');
  expect(agentRuns(dir)).toBe(3);
});

it('POST /api/runs starts a workflow by name with its message; a prompt with it is refused', async () => {
  t = await startTestServer();
  const server = t;
  // A YAML alias bomb in another file is that file's problem only (each line's alias expands the one above 9 times).
  const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]', ...'bcdefg'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefg'[i] ?? ''}`).join(', ')}]`), ''].join('\n');
  const dir = workspace({ fix: 'name: fix\nloop:\n  until: COMPLETE\n  max_iterations: 3\nprompt: "fix $USER_MESSAGE"\n', bomb }, [{ say: 'one\n' }, { say: '<promise>COMPLETE</promise>\n' }]);
  const bombed = await server.request('/api/runs', { body: { workspace: dir, workflow: 'bomb', agent_command: SCRIPT_AGENT } });
  expect(bombed).toMatchObject({ status: 400, body: { error: { code: 'invalid_request', message: `${dir}/.ringmaster/workflows/bomb.yaml:2: invalid YAML: its aliases expand too much (more than 100 expansions): write the values out, or use fewer aliases` } } });
  const refused = await server.request('/api/runs', { body: { workspace: dir, workflow: 'fix', prompt: 'x' } });
  expect(refused).toMatchObject({ status: 400, body: { error: { code: 'invalid_request', message: 'workflow: a workflow brings its own prompts (no prompt, prompt_file or procedure with it)' } } });
  expect((await server.request('/api/runs', { body: { workspace: dir, workflow: 'nope', agent_command: SCRIPT_AGENT } })).status).toBe(400);
  const created = await server.request('/api/runs', { body: { workspace: dir, workflow: 'fix', message: 'the parser', agent_command: SCRIPT_AGENT, checkpoint_interval: 0 } });
  expect(created.status, created.text).toBe(201);
  const { id } = created.body as { id: string };
  const done = await until('the workflow to end', async () => {
    const d = (await server.request(`/api/runs/${id}`)).body as Detail;
    return ['completed', 'failed', 'stopped'].includes(d.run.status) ? d : null;
  });
  expect(done.run).toMatchObject({ status: 'completed', stop_reason: 'success_signal', kind: 'workflow', meta: { workflow: 'fix', iteration_count: 2 } });
  expect(done.iterations.map((i) => [i.number, i.status, i.unit_id])).toEqual([[1, 'success', 'fix'], [2, 'complete', 'fix']]);
  expect(done.units).toEqual([{ id: 'fix', title: 'fix', status: 'completed', iterations: 2, cost_usd: 0 }]);
});
