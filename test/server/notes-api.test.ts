// The notes API (docs/notes.md) over a real server and a real run: 401 without the credential, 413 over 4 KiB,
// 400 for a malformed body, a note listed, withdrawn (409 twice), another delivered to the next iteration's prompt
// with note_added / note_delivered in the run's events; secrets of the server's environment redacted.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { planAgent } from '../helpers/cli.js';
import { startTestServer, until, useRepos, type TestServer } from './harness.js';

let t: TestServer | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});
const repo = useRepos();
const SECRET = 'sk-notes-secret-0123456789';

it('adds, lists, withdraws and delivers notes through the API', async () => {
  const s = (t = await startTestServer({ env: { OPENAI_API_KEY: SECRET } }));
  const dir = repo();
  const created = await s.request('/api/runs', { body: { workspace: dir, prompt: 'work', agent_command: planAgent('gate,complete'), cooldown: 0, checkpoint_interval: 0 } });
  expect(created.status).toBe(201);
  const id = (created.body as { id: string }).id;
  await until('iteration 1', () => (existsSync(join(dir, '.plan-agent-prompt-1')) ? true : null));

  expect((await s.request(`/api/runs/${id}/notes`, { body: { text: 'hi' }, anonymous: true })).status).toBe(401);
  expect((await s.request(`/api/runs/${id}/notes`, { anonymous: true })).status).toBe(401);
  const big = await s.request(`/api/runs/${id}/notes`, { body: { text: 'é'.repeat(2049) } });
  expect(big).toMatchObject({ status: 413, body: { error: { code: 'payload_too_large', message: 'the note is 4098 bytes: a note holds at most 4096 bytes (4 KiB)' } } });
  expect((await s.request(`/api/runs/${id}/notes`, { body: { note: 'x' } })).status).toBe(400);
  expect(await s.request(`/api/runs/${id}/notes`, { body: { text: '  ' } })).toMatchObject({ status: 400, body: { error: { code: 'invalid_request', message: 'the note is empty' } } });

  const first = await s.request(`/api/runs/${id}/notes`, { body: { text: `Use key ${SECRET} carefully.` } });
  expect(first).toMatchObject({ status: 201, body: { id: 1, run_id: id, text: 'Use key [REDACTED:OPENAI_API_KEY] carefully.', by: 'user', status: 'pending', delivered_iteration: null } });
  const second = await s.request(`/api/runs/${id}/notes`, { body: { text: 'Never mind.' } });
  expect(second).toMatchObject({ status: 201, body: { id: 2, status: 'pending' } });
  expect(await s.request(`/api/runs/${id}/notes/2`, { method: 'DELETE' })).toMatchObject({ status: 200, body: { id: 2, status: 'withdrawn' } });
  expect(await s.request(`/api/runs/${id}/notes/2`, { method: 'DELETE' })).toMatchObject({ status: 409, body: { error: { code: 'conflict', message: 'note 2 was already withdrawn' } } });
  expect(await s.request(`/api/runs/${id}/notes/9`, { method: 'DELETE' })).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
  const listed = await s.request(`/api/runs/${id}/notes`);
  expect((listed.body as { notes: Array<{ id: number; status: string }> }).notes.map((n) => [n.id, n.status])).toEqual([[1, 'pending'], [2, 'withdrawn']]);

  writeFileSync(join(dir, '.gate-1'), '');
  await until('the run ends', async () => (((await s.request(`/api/runs/${id}`)).body as { run: { status: string } }).run.status === 'completed' ? true : null));
  const prompt2 = readFileSync(join(dir, '.plan-agent-prompt-2'), 'utf8');
  expect(prompt2).toContain('### Note 1 (');
  expect(prompt2).toContain('Use key [REDACTED:OPENAI_API_KEY] carefully.');
  expect(prompt2).not.toContain('Never mind.');
  expect(readFileSync(join(dir, '.plan-agent-prompt-1'), 'utf8')).not.toContain('Use key');
  const events = ((await s.request(`/api/runs/${id}/events`)).body as { events: Array<{ type: string; note_id?: number; iteration?: number }> }).events;
  expect(events.filter((e) => e.type.startsWith('note_')).map((e) => [e.type, e.note_id, e.iteration ?? null])).toEqual([
    ['note_added', 1, null],
    ['note_added', 2, null],
    ['note_delivered', 1, 2],
  ]);
  expect((await s.request(`/api/runs/${id}/notes`)).body).toMatchObject({ notes: [{ id: 1, status: 'delivered', delivered_iteration: 2 }, { id: 2, status: 'withdrawn' }] });
  // It completed: no iteration will ever read another note.
  expect(await s.request(`/api/runs/${id}/notes`, { body: { text: 'too late' } })).toMatchObject({
    status: 409,
    body: { error: { code: 'conflict', message: `run ${id} has completed (the agent signalled success) and cannot be resumed: no iteration would read the note` } },
  });
});

it('takes at most 64 notes waiting for a run\'s next iteration', async () => {
  const s = (t = await startTestServer());
  const dir = repo();
  const created = await s.request('/api/runs', { body: { workspace: dir, prompt: 'work', agent_command: planAgent('gate,complete'), cooldown: 0, checkpoint_interval: 0 } });
  const id = (created.body as { id: string }).id;
  await until('iteration 1', () => (existsSync(join(dir, '.plan-agent-prompt-1')) ? true : null));
  for (let n = 1; n <= 64; n++) expect((await s.request(`/api/runs/${id}/notes`, { body: { text: `note ${n}` } })).status).toBe(201);
  expect(await s.request(`/api/runs/${id}/notes`, { body: { text: 'one more' } })).toMatchObject({
    status: 409,
    body: { error: { code: 'conflict', message: `run ${id} has 64 notes waiting for its next iteration, the most it takes: withdraw some, or wait for it to read them` } },
  });
  expect((await s.request(`/api/runs/${id}/notes/64`, { method: 'DELETE' })).status).toBe(200);
  expect((await s.request(`/api/runs/${id}/notes`, { body: { text: 'one more' } })).status).toBe(201);
  expect((await s.request(`/api/runs/${id}/stop`, { body: {} })).status).toBe(200);
});
