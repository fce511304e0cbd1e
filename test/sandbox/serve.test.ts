// A run created through the API (`ringmaster serve`) with `"sandbox": {...}`: its agent runs confined, the refused
// connection is one of its events, and the policy is in the run's spec as the API shows it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { ServerMessage } from '../../src/server/schemas.js';
import { NO_BWRAP, SKIP_REASON, useHostPort } from '../helpers/sandbox.js';
import { ROOT } from '../helpers/cli.js';
import { connect, startTestServer, useRepos, type TestServer } from '../server/harness.js';

const AGENT = join(ROOT, 'test', 'fixtures', 'agents', 'escape-agent.mjs');
const repo = useRepos();
let t: TestServer | null = null;
const host = useHostPort();

afterEach(async () => {
  await t?.stop();
  t = null;
});

type EventMessage = Extract<ServerMessage, { type: 'event' }>;

it.skipIf(NO_BWRAP)(`POST /api/runs with a sandbox: the agent is confined, its refusal an event, the policy in the spec${SKIP_REASON}`, { timeout: 60_000 }, async () => {
  t = await startTestServer();
  const dir = repo();
  const client = await connect(t.base, t.auth);
  client.send({ type: 'subscribe', runs: '*', activity: 'none' });
  const body = { workspace: dir, prompt: 'escape', agent_command: [process.execPath, AGENT, String(host.port), `ringmaster-serve-${process.pid}`], max_iterations: 1, checkpoint_interval: 0, cooldown: 0, sandbox: { network: 'agent', allow_hosts: ['api.example.com'] } };
  const created = await t.request('/api/runs', { body });
  expect(created.status).toBe(201);
  const { id } = created.body as { id: string };
  const finished = (m: ServerMessage): m is EventMessage => m.type === 'event' && m.run_id === id && m.event.type === 'run_finished';
  await client.waitFor(finished, 'the end of the run');
  const detail = (await t.request(`/api/runs/${id}`)).body as { run: { spec: { sandbox: unknown } } };
  expect(detail.run.spec.sandbox).toEqual({ network: 'agent', hide: [], allowWrite: [], allowHosts: ['api.example.com'], memoryBytes: null, pids: null });
  const events = ((await t.request(`/api/runs/${id}/events`)).body as { events: Array<{ type: string; host?: string; port?: number }> }).events;
  expect(events.filter((e) => e.type === 'sandbox_blocked').map((e) => [e.host, e.port])).toEqual([['127.0.0.1', host.port]]);
  expect(readFileSync(join(dir, 'result.txt'), 'utf8')).toBe('written in the workspace\n');
});
