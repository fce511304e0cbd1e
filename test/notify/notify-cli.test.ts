// `ringmaster notify test` and a `ringmaster run` that notifies, end to end (the built CLI): what each target
// answered, exit codes, and the run's notification line in the terminal.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startFakeHttp, type FakeServer } from '../fakes/fake-http.js';
import { cleanEnv, normalise, planAgent, runCli, useWorkspace } from '../helpers/cli.js';

const ws = useWorkspace('work\n');
let server: FakeServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

it('notify test says what each target answered; a run notifies its end and prints the delivery', async () => {
  const bodies: Array<{ path: string; body: string }> = [];
  server = await startFakeHttp((req, res, body) => {
    bodies.push({ path: req.url ?? '', body });
    res.writeHead(req.url?.startsWith('/gone') ? 404 : 200, { 'content-type': 'text/plain' });
    res.end(req.url?.startsWith('/gone') ? 'no such hook' : 'ok');
    return Promise.resolve();
  });
  const host = `http://127.0.0.1:${server.port}`;
  const hear = join(ws.dir, 'hear.sh');
  writeFileSync(hear, '#!/bin/sh\ncat > heard.json\necho noted\n');
  chmodSync(hear, 0o755);
  writeFileSync(join(ws.dir, 'ringmaster.yml'), `notify:\n  command: ["${hear}"]\nserver:\n  public_url: https://rm.example.com\n`);

  mkdirSync(join(ws.dir, 'elsewhere'));
  const none = await runCli(['notify', 'test'], { cwd: join(ws.dir, 'elsewhere'), env: cleanEnv() });
  expect([none.code, none.stdout, none.stderr]).toEqual([64, '', 'no notification targets: set notify.webhooks (user config or RINGMASTER_NOTIFY_WEBHOOKS) or notify.command (see README.md#notifications)\n']);

  const env = cleanEnv({ RINGMASTER_NOTIFY_WEBHOOKS: `slack=${host}/slack/SECRET ntfy=${host}/gone/SECRET` });
  const tested = await runCli(['notify', 'test'], { cwd: ws.dir, env });
  expect(tested.stderr).toBe('');
  expect(tested.stdout).toBe(`slack ${host}/…: delivered (HTTP 200 ok)\nntfy ${host}/…: failed: HTTP 404 no such hook\ncommand hear.sh: delivered (exit 0: noted)\n`);
  expect(tested.code).toBe(1);
  expect(JSON.parse(bodies.find((b) => b.path.startsWith('/slack'))?.body ?? '')).toEqual({
    text: `*Ringmaster: ringmaster notify test completed*\nRun notify-test (ringmaster notify test) completed: success_signal (a sample sent by ringmaster notify test). 3 iterations, $0.42. Workspace ${ws.dir}. https://rm.example.com/runs/notify-test`,
  });

  bodies.length = 0;
  const run = await runCli(['run', '--agent-command', planAgent('ok,complete'), '--checkpoint-interval', '0', '--prompt', 'Fix the parser'], { cwd: ws.dir, env: cleanEnv({ RINGMASTER_NOTIFY_WEBHOOKS: `json=${host}/hook/SECRET` }) });
  expect(run.code).toBe(0);
  expect(normalise(run.stdout)).toContain(`[T] Notification (completed) to json ${host}/…: delivered (HTTP 200 ok)\n`);
  expect(run.stdout + run.stderr).not.toContain('SECRET');
  const body = JSON.parse(bodies[0]?.body ?? '') as Record<string, unknown>;
  expect(body).toMatchObject({ event: 'completed', title: 'Fix the parser', workspace: ws.dir, reason: 'success_signal', iterations: 2, cost_usd: 0, cost_unknown: true });
  expect(body.url).toBe(`https://rm.example.com/runs/${String(body.run_id)}`);
});
