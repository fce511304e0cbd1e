// GET /metrics of a real server in this process: behind the API's token, scraped while a run is in its third
// iteration, each figure checked against what `ringmaster show --json` says of the same run.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, expect, it } from 'vitest';
import { showCommand } from '../../src/cli/commands/show.js';
import { planAgent } from '../helpers/cli.js';
import { connect, startTestServer, until, useRepos, type TestServer } from './harness.js';

let t: TestServer | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});
const repo = useRepos();
const TOKEN = 'metrics-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

/** The samples of an exposition text: `name{labels}` -> value. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

interface ShowJson {
  run: { status: string; iterations: number; cost_usd: number; tokens_in: number; tokens_out: number };
  iterations: Array<{ number: number; status: string; duration_ms: number | null; agent: string }>;
}

async function showJson(s: TestServer, dir: string, id: string): Promise<ShowJson> {
  let stdout = '';
  const io = { stdout: { write: (c: string) => (stdout += c) }, stderr: { write: () => true }, stdin: new PassThrough(), env: s.env, cwd: dir, onSignal: () => () => undefined };
  expect(await showCommand.run([id, '--json'], io)).toBe(0);
  return JSON.parse(stdout) as ShowJson;
}

it('answers only with the token, and its figures during a run are those of show --json', async () => {
  t = await startTestServer({ token: TOKEN });
  const s = t;
  const dir = repo();
  expect((await s.request('/metrics', { anonymous: true })).status).toBe(401);
  expect((await s.request('/metrics', { headers: { authorization: 'Bearer wrong-token-0000000' } })).status).toBe(401);

  const created = await s.request('/api/runs', { body: { workspace: dir, prompt: 'work', agent_command: planAgent('ok,ok,gate,complete'), cooldown: 0, checkpoint_interval: 0 }, headers: auth });
  expect(created.status, created.text).toBe(201);
  const { id } = created.body as { id: string };
  const client = await connect(s.base, auth);
  await until('the third iteration', async () => ((await showJson(s, dir, id)).iterations.find((i) => i.number === 3)?.status === 'running' ? true : null));

  const scraped = await s.request('/metrics', { headers: auth });
  expect(scraped.status).toBe(200);
  const m = samples(scraped.text);
  const shown = await showJson(s, dir, id);
  const finished = shown.iterations.filter((i) => i.status !== 'running');
  expect(shown.run.status).toBe('running');
  expect(m.get('ringmaster_runs{status="running"}')).toBe(1);
  expect(m.get('ringmaster_runs{status="completed"}')).toBe(0);
  expect(m.get('ringmaster_queue_length')).toBe(0);
  expect(m.get('ringmaster_iterations_total{agent="command",outcome="success"}')).toBe(shown.iterations.filter((i) => i.status === 'success').length);
  expect(m.get('ringmaster_iterations_total{agent="command",outcome="running"}')).toBe(1);
  expect(m.get('ringmaster_cost_usd_total{agent="command"}')).toBe(shown.run.cost_usd);
  expect(m.get('ringmaster_tokens_total{agent="command",kind="input"}')).toBe(shown.run.tokens_in);
  expect(m.get('ringmaster_tokens_total{agent="command",kind="output"}')).toBe(shown.run.tokens_out);
  expect(m.get('ringmaster_iteration_duration_seconds_count{agent="command"}')).toBe(finished.length);
  expect(m.get('ringmaster_iteration_duration_seconds_bucket{agent="command",le="+Inf"}')).toBe(finished.length);
  expect(m.get('ringmaster_iteration_duration_seconds_sum{agent="command"}')).toBeCloseTo(finished.reduce((sum, i) => sum + (i.duration_ms ?? 0), 0) / 1000, 6);
  expect(m.get('ringmaster_usage_limit_waits_total{agent="command"}') ?? 0).toBe(0);
  expect(m.get('ringmaster_websocket_clients')).toBe(1);
  expect(m.get('ringmaster_store_write_seconds_count{method="startIteration"}')).toBe(3);
  expect(scraped.text).toContain('# TYPE ringmaster_iteration_duration_seconds histogram');
  expect(scraped.text).toContain('# TYPE ringmaster_iterations_total counter');
  expect(m.has('ringmaster_process_resident_memory_bytes')).toBe(true);

  writeFileSync(join(dir, '.gate-3'), '');
  await until('the run to end', async () => ((await showJson(s, dir, id)).run.status === 'completed' ? true : null));
  client.ws.close();
  const after = samples((await s.request('/metrics', { headers: auth })).text);
  expect(after.get('ringmaster_runs{status="completed"}')).toBe(1);
  expect(after.get('ringmaster_runs{status="running"}')).toBe(0);
  expect(after.get('ringmaster_iteration_duration_seconds_count{agent="command"}')).toBe(4);
  expect(after.get('ringmaster_iterations_total{agent="command",outcome="complete"}')).toBe(1);
});
