// `ringmaster stop|pause|resume RUN` of a run queued (pending) in a server reach it as the API does: the
// server answers the requests for the runs in its queue (a stop closes it, a pause holds it, a resume queues it
// again). Through the built CLI, against a real server with max_concurrent 1.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { planAgent, runCli } from '../helpers/cli.js';
import { startTestServer, until, useRepos, type TestServer } from './harness.js';

let t: TestServer | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});
const repo = useRepos();
const agentCount = (dir: string): number => (existsSync(join(dir, '.plan-agent-count')) ? Number(readFileSync(join(dir, '.plan-agent-count'), 'utf8')) : 0);

it('stop, pause and resume of a queued run from the CLI act on it in the server queue', async () => {
  t = await startTestServer({ maxConcurrent: 1 });
  const server = t;
  const [a, b, c] = [repo(), repo(), repo()];
  const ids: string[] = [];
  for (const dir of [a, b, c]) {
    const r = await server.request('/api/runs', { body: { workspace: dir, prompt: 'work', agent_command: planAgent('gate,complete'), cooldown: 0, checkpoint_interval: 0 } });
    ids.push((r.body as { id: string }).id);
  }
  const [idA, idB, idC] = ids as [string, string, string];
  const status = async (id: string): Promise<string> => ((await server.request(`/api/runs/${id}`)).body as { run: { status: string } }).run.status;
  expect([await status(idB), await status(idC)]).toEqual(['pending', 'pending']);
  const cli = (dir: string, ...args: string[]) => runCli(args, { cwd: dir, env: server.env });

  const stopped = await cli(b, 'stop', idB);
  expect([stopped.code, stopped.stdout.split('\n').at(-2)]).toEqual([0, `run ${idB} stopped (stopped, user_stop)`]);
  expect((await server.request(`/api/runs/${idB}`)).body).toMatchObject({ run: { status: 'stopped', stop_reason: 'user_stop' } });

  expect((await cli(c, 'pause', idC)).code).toBe(0);
  await until('C held', async () => ((await status(idC)) === 'paused' ? true : null));
  const resumed = await cli(c, 'resume', idC);
  expect([resumed.code, resumed.stdout, resumed.stderr]).toEqual([0, `resumed run ${idC}\n`, '']);
  expect(await status(idC)).toBe('pending');

  // A finishes; C runs next; B never ran.
  await until('A running', () => (agentCount(a) === 1 ? true : null));
  writeFileSync(join(a, '.gate-1'), '');
  await until('C to start', () => (agentCount(c) === 1 ? true : null));
  writeFileSync(join(c, '.gate-1'), '');
  await until('C to end', async () => ((await status(idC)) === 'completed' ? true : null));
  expect([await status(idA), agentCount(b)]).toEqual(['completed', 0]);
}, 60_000);
