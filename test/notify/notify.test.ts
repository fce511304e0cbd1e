// Notifications against real HTTP servers on loopback: each format's exact request, retries and their limits, a
// target that never answers, notify.command (argv, JSON on stdin), the bounded flush at a run's end, and a run
// whose webhook hangs going on regardless (the run ends while the request is still open).
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { registerAgent } from '../../src/agents/registry.js';
import type { AgentEvent } from '../../src/agents/types.js';
import { resolveRun } from '../../src/spec/resolve.js';
import { loadConfig } from '../../src/config/load.js';
import { formatSetting } from '../../src/config/settings.js';
import { ConfigError } from '../../src/core/errors.js';
import { RunController } from '../../src/manager/run-controller.js';
import { Notifier } from '../../src/notify/notifier.js';
import { notificationText, type Notification } from '../../src/notify/payload.js';
import { commandTarget, webhookTarget } from '../../src/notify/targets.js';
import type { RunEvent, RunEventBody } from '../../src/runner/events.js';
import type { Store } from '../../src/store/store.js';
import { startFakeHttp, type FakeServer } from '../fakes/fake-http.js';
import { useWorkspace } from '../helpers/cli.js';
import { homeEnv, openTestStore, useFreshHome } from '../helpers/home.js';
import { until } from '../helpers/until.js';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A webhook server: `answer` decides each request's fate (an HTTP status, or 'hang': never answer). */
async function webhookServer(answer: (n: number) => number | 'hang'): Promise<{ url: string; received: Received[]; open: Set<ServerResponse> }> {
  const received: Received[] = [];
  const open = new Set<ServerResponse>();
  const server = await startFakeHttp((req, res, body) => {
    received.push({ path: req.url ?? '', headers: req.headers, body });
    const status = answer(received.length);
    if (status === 'hang') {
      open.add(res);
      res.on('close', () => open.delete(res));
      return Promise.resolve();
    }
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(status < 300 ? 'ok' : 'try later');
    return Promise.resolve();
  });
  servers.push(server);
  return { url: server.url, received, open };
}

const SAMPLE: Notification = {
  event: 'completed',
  run_id: 'r-1',
  title: 'Fix the parser',
  workspace: '/w',
  reason: 'success_signal',
  iterations: 3,
  cost_usd: 0.5,
  cost_unknown: false,
  url: 'http://127.0.0.1:7420/runs/r-1',
  time: '2026-01-02T03:04:05.000Z',
};
const TEXT = 'Run r-1 (Fix the parser) completed: success_signal. 3 iterations, $0.50. Workspace /w. http://127.0.0.1:7420/runs/r-1';
const FAST = { attempts: 3, timeoutMs: 30_000, backoffMs: 10 };

function notifier(targets: Parameters<typeof webhookTarget>[0][], options: Partial<ConstructorParameters<typeof Notifier>[0]> = {}): { n: Notifier; events: RunEventBody[] } {
  const events: RunEventBody[] = [];
  const n = new Notifier({ runId: 'r-1', title: 'Fix the parser', workspace: '/w', publicUrl: 'http://127.0.0.1:7420', targets: targets.map(webhookTarget), emit: (e) => events.push(e), now: () => 7, policy: FAST, ...options });
  return { n, events };
}

describe('webhooks', () => {
  it('sends each format its exact body and headers, and records each delivery without the secret path', async () => {
    const hook = await webhookServer(() => 200);
    const { n, events } = notifier([
      { url: `${hook.url}/slack/T000/SECRET`, format: 'slack' },
      { url: `${hook.url}/discord/SECRET`, format: 'discord' },
      { url: `${hook.url}/ntfy-topic-SECRET`, format: 'ntfy' },
      { url: `${hook.url}/json/SECRET`, format: 'json' },
    ]);
    n.send(SAMPLE);
    await until('four deliveries', () => events.length === 4);
    const byPath = new Map(hook.received.map((r) => [r.path.split('/')[1] ?? '', r]));
    expect(JSON.parse(byPath.get('slack')?.body ?? '')).toEqual({ text: `*Ringmaster: Fix the parser completed*\n${TEXT}` });
    expect(JSON.parse(byPath.get('discord')?.body ?? '')).toEqual({ content: `**Ringmaster: Fix the parser completed**\n${TEXT}` });
    const ntfy = byPath.get('ntfy-topic-SECRET');
    expect(ntfy?.body).toBe(TEXT);
    expect([ntfy?.headers.title, ntfy?.headers.tags, ntfy?.headers.click, ntfy?.headers['content-type']]).toEqual(['Ringmaster: Fix the parser completed', 'white_check_mark', SAMPLE.url, 'text/plain; charset=utf-8']);
    expect(JSON.parse(byPath.get('json')?.body ?? '')).toEqual(SAMPLE);
    for (const r of hook.received) expect(r.headers['user-agent']).toBe('ringmaster');
    expect(events.map((e) => (e.type === 'notification' ? `${e.target} ${e.status} ${e.attempts} ${e.answer}` : e.type)).sort()).toEqual(
      ['discord', 'json', 'ntfy', 'slack'].map((f) => `${f} http://127.0.0.1:${new URL(hook.url).port}/… delivered 1 HTTP 200 ok`),
    );
    expect(JSON.stringify(events)).not.toContain('SECRET');
  });

  it('never shows an unknown cost as $0: "cost unknown", or at least what is known', () => {
    expect(notificationText({ ...SAMPLE, cost_usd: 0, cost_unknown: true })).toBe(TEXT.replace('$0.50', 'cost unknown'));
    expect(notificationText({ ...SAMPLE, cost_unknown: true })).toBe(TEXT.replace('$0.50', '>= $0.50'));
  });

  it('retries a 5xx with backoff until it is taken, gives up on a 4xx at once, and stops at the attempt limit', async () => {
    const flaky = await webhookServer((k) => (k < 3 ? 503 : 200));
    const gone = await webhookServer(() => 404);
    const down = await webhookServer(() => 500);
    const { n, events } = notifier([
      { url: `${flaky.url}/a`, format: 'json' },
      { url: `${gone.url}/b`, format: 'json' },
      { url: `${down.url}/c`, format: 'json' },
    ]);
    n.send(SAMPLE);
    await until('three deliveries', () => events.length === 3);
    const of = (url: string) => events.find((e) => e.type === 'notification' && e.target.includes(new URL(url).host));
    expect(of(flaky.url)).toMatchObject({ status: 'delivered', attempts: 3, answer: 'HTTP 200 ok', reason: null });
    expect(of(gone.url)).toMatchObject({ status: 'failed', attempts: 1, answer: 'HTTP 404 try later', reason: 'HTTP 404 try later' });
    expect(of(down.url)).toMatchObject({ status: 'failed', attempts: 3, reason: 'HTTP 500 try later' });
    expect([flaky.received.length, gone.received.length, down.received.length]).toEqual([3, 1, 3]);
  });

  it('a target that never answers: each try ends at its time limit; one still hanging at flush is abandoned and recorded', async () => {
    const hang = await webhookServer(() => 'hang');
    const timed = notifier([{ url: `${hang.url}/t`, format: 'json' }], { policy: { attempts: 2, timeoutMs: 200, backoffMs: 10 } });
    timed.n.send(SAMPLE);
    await until('the timed-out delivery', () => timed.events.length === 1);
    expect(timed.events[0]).toMatchObject({ type: 'notification', status: 'failed', attempts: 2, answer: null, reason: 'no answer within 0.2s' });

    const held = notifier([{ url: `${hang.url}/f`, format: 'json' }], { flushMs: 100 });
    held.n.send(SAMPLE);
    await until('the request', () => hang.received.some((r) => r.path === '/f'));
    expect(held.n.inFlight).toBe(1);
    await held.n.flush();
    expect(held.n.inFlight).toBe(0);
    expect(held.events).toEqual([
      { type: 'notification', time: 7, event: 'completed', target: `json ${new URL(hang.url).origin}/…`, status: 'failed', attempts: 1, answer: null, reason: 'abandoned: the run ended 0.1s before' },
    ]);
    held.n.send(SAMPLE);
    expect(held.n.inFlight).toBe(0);
  });

  it('notifies only the events of notify.on', async () => {
    const hook = await webhookServer(() => 200);
    const { n, events } = notifier([{ url: `${hook.url}/x`, format: 'json' }], { on: ['failed'] });
    n.send(SAMPLE);
    n.send({ ...SAMPLE, event: 'failed' });
    await until('one delivery', () => events.length === 1);
    await n.flush();
    expect(hook.received.map((r) => (JSON.parse(r.body) as Notification).event)).toEqual(['failed']);
  });
});

describe('the shared budget', () => {
  it("notifies a threshold event as 'budget' with what was spent of which limit; a run waiting for the budget is not notified", async () => {
    const hook = await webhookServer(() => 200);
    const { n, events } = notifier([{ url: `${hook.url}/x`, format: 'json' }]);
    const resets = Date.UTC(2026, 0, 3);
    n.observe({ run_id: 'r-1', seq: 1, time: Date.UTC(2026, 0, 2, 3), type: 'waiting', iteration: 2, until: resets, reason: 'budget' });
    n.observe({ run_id: 'r-1', seq: 2, time: Date.UTC(2026, 0, 2, 3), type: 'budget_threshold', window: 'daily', percent: 80, spent_usd: 4.1, limit_usd: 5, resets_at: resets });
    await until('one delivery', () => events.length === 1);
    await n.flush();
    expect(hook.received.map((r) => JSON.parse(r.body) as Notification)).toEqual([
      { ...SAMPLE, event: 'budget', reason: '80% of the daily budget: $4.1000 of $5.00 spent (resets 2026-01-03T00:00:00.000Z)', iterations: 0, cost_usd: 0, time: '2026-01-02T03:00:00.000Z' },
    ]);
  });
});

describe('notify.command', () => {
  const ws = useWorkspace('x\n');
  it('runs the argv without a shell, the JSON on stdin, and records its exit and first line; a failing one is retried', async () => {
    const script = join(ws.dir, 'hear.js');
    writeFileSync(script, `#!${process.execPath}\nlet s='';process.stdin.on('data',d=>s+=d).on('end',()=>{require('fs').appendFileSync('heard.jsonl', JSON.stringify({argv: process.argv.slice(2), body: JSON.parse(s)})+'\\n');console.log('heard it');process.exitCode=process.argv[2]==='fail'?3:0;});\n`);
    chmodSync(script, 0o755);
    const events: RunEventBody[] = [];
    const targets = [commandTarget([script, '$(touch pwned)', 'a b'], ws.dir), commandTarget([script, 'fail'], ws.dir)];
    const n = new Notifier({ runId: 'r-1', title: 'Fix the parser', workspace: '/w', publicUrl: 'http://x', targets, emit: (e) => events.push(e), now: () => 7, policy: { attempts: 2, timeoutMs: 30_000, backoffMs: 10 } });
    n.send(SAMPLE);
    await until('two deliveries', () => events.length === 2);
    const heard = readFileSync(join(ws.dir, 'heard.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { argv: string[]; body: Notification });
    expect(heard.find((h) => h.argv[0] !== 'fail')).toEqual({ argv: ['$(touch pwned)', 'a b'], body: SAMPLE });
    expect(heard.filter((h) => h.argv[0] === 'fail')).toHaveLength(2);
    expect(events.map((e) => (e.type === 'notification' ? [e.target, e.status, e.attempts, e.answer] : [])).sort()).toEqual([
      ['command hear.js', 'delivered', 1, 'exit 0: heard it'],
      ['command hear.js', 'failed', 2, 'exit 3: heard it'],
    ]);
    expect(() => readFileSync(join(ws.dir, 'pwned'))).toThrow();
  });
  it('a command whose output a process outside its group holds: flush still returns, the delivery recorded as abandoned and ended', async () => {
    // The command starts a process in a session of its own on its stdout (killing the command's group misses it,
    // and its pipe never closes), then hangs.
    const script = join(ws.dir, 'stray.js');
    writeFileSync(script, `#!${process.execPath}\nconst c=require('child_process').spawn(process.execPath,['-e','setTimeout(()=>{},60000)'],{detached:true,stdio:['ignore','inherit','inherit']});require('fs').writeFileSync('stray.pid',String(c.pid));setInterval(()=>{},1000);\n`);
    chmodSync(script, 0o755);
    const events: RunEventBody[] = [];
    const n = new Notifier({ runId: 'r-1', title: 'Fix the parser', workspace: '/w', publicUrl: 'http://x', targets: [commandTarget([script], ws.dir)], emit: (e) => events.push(e), now: () => 7, policy: FAST, flushMs: 100 });
    n.send(SAMPLE);
    await until('the stray process', () => existsSync(join(ws.dir, 'stray.pid')) && readFileSync(join(ws.dir, 'stray.pid'), 'utf8') !== '');
    const stray = Number(readFileSync(join(ws.dir, 'stray.pid'), 'utf8'));
    const killStray = (): void => {
      try {
        process.kill(stray, 'SIGKILL');
      } catch {
        // Gone already.
      }
    };
    onTestFinished(killStray);
    await n.flush();
    // Recorded once: by the delivery itself (its pipes closed half a second after the command's exit), or, on a
    // machine too slow for that within flush's second, by the notifier.
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'notification', event: 'completed', target: 'command stray.js', status: 'failed', attempts: 1, answer: null });
    expect((events[0] as { reason: string }).reason).toMatch(/^abandoned: the run ended 0\.1s before( \(it did not end when abandoned\))?$/);
    // The delivery ends although the stray still holds its pipe: nothing of it is kept.
    await until('the delivery to end', () => n.inFlight === 0);
    expect(process.kill(stray, 0)).toBe(true);
    expect(events).toHaveLength(1);
  });
});

describe('a run', () => {
  const ws = useWorkspace('work\n');
  useFreshHome();
  let store: Store;
  beforeEach(async () => {
    store = await openTestStore();
    // Iteration 1 hits a usage limit that resets at once; iteration 2 completes (once the webhook has the wait's notification).
    writeFileSync(
      join(ws.dir, 'agent.js'),
      `const fs=require('node:fs');const n=fs.existsSync('count')?Number(fs.readFileSync('count','utf8'))+1:1;fs.writeFileSync('count',String(n));
process.stdin.resume();process.stdin.on('end',()=>{if(n===1){console.log(JSON.stringify({limit:true}));process.exitCode=1;return;}
// Iteration 2 ends only once the wait's notification has reached the webhook (the test's server leaves a file); after
// 10 s without it, it fails (the test then fails on what it sees instead of timing out with this agent left running).
const start=Date.now();const t=setInterval(()=>{if(fs.existsSync('.hook-arrived')){clearInterval(t);console.log(JSON.stringify({text:'done <promise>COMPLETE</promise>'}));}else if(Date.now()-start>10000){clearInterval(t);console.log(JSON.stringify({text:'no notification reached the webhook in 10 s'}));process.exitCode=4;}},20);});`,
    );
  });
  afterEach(async () => {
    await store.close();
  });
  registerAgent('notify-limit-agent', () => ({
    name: 'notify-limit-agent',
    displayName: 'limit agent',
    format: 'jsonl',
    supportsResume: false,
    buildInvocation: (options) => ({ command: process.execPath, args: [join(options.cwd, 'agent.js')], env: { ...options.env }, stdin: options.prompt }),
    createParser: () => ({
      line(line): AgentEvent[] {
        const data = JSON.parse(line) as { limit?: boolean; text?: string };
        return data.limit ? [{ type: 'limit', kind: 'usage_limit', resetAtMs: Date.now() + 50, message: 'usage limit' }] : [{ type: 'text', text: data.text ?? '' }];
      },
      end: () => [],
    }),
    classifyExit: () => null,
  }));

  it('goes on while its webhook hangs: the run ends with the request still open, the deliveries recorded after run_finished', async () => {
    // The wait's notification hangs; the completion's is taken.
    const hook = await webhookServer((k) => {
      if (k !== 1) return 200;
      writeFileSync(join(ws.dir, '.hook-arrived'), '');
      return 'hang';
    });
    const env = homeEnv({ PATH: process.env.PATH ?? '', HOME: ws.dir, XDG_CONFIG_HOME: join(ws.dir, 'no-config'), RINGMASTER_NOTIFY_WEBHOOKS: `json=${hook.url}/hook/SECRET` });
    const { spec } = resolveRun(ws.dir, env, { prompt: 'work', maxIterations: '3', settings: [{ key: 'agent.name', flag: '--agent', raw: 'notify-limit-agent' }, { key: 'loop.checkpoint_interval', flag: '--checkpoint-interval', raw: '0' }] });
    const events: RunEvent[] = [];
    let openAtFinish = -1;
    const controller = new RunController({
      store, env, runId: 'notify-run', spec, workspace: ws.dir, mode: 'create',
      notify: { flushMs: 200 },
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'run_finished') openAtFinish = hook.open.size;
      },
    });
    // Should it go wrong, the run is stopped before the test's time limit, and the assertions below say what happened.
    const watchdog = setTimeout(() => controller.requestStop('test watchdog'), 40_000);
    const summary = await controller.run();
    clearTimeout(watchdog);
    const types = events.map((e) => e.type).filter((t) => !['tokens_used', 'cost_incurred', 'error', 'warning'].includes(t));
    expect(types).toEqual([
      'run_started', 'iteration_started', 'iteration_completed', 'waiting',
      'iteration_started', 'completion_signal_detected', 'iteration_completed', 'completed', 'run_finished',
      'notification', 'notification',
    ]);
    expect(summary.status).toBe('completed');
    expect(openAtFinish).toBe(1);
    const notes = events.filter((e): e is Extract<RunEvent, { type: 'notification' }> => e.type === 'notification');
    expect(notes.map((e) => [e.event, e.status, e.reason])).toEqual(
      expect.arrayContaining([
        ['completed', 'delivered', null],
        ['waiting', 'failed', 'abandoned: the run ended 0.2s before'],
      ]),
    );
    const bodies = hook.received.map((r) => JSON.parse(r.body) as Notification);
    expect(bodies.map((b) => [b.event, b.run_id, b.iterations, b.url])).toEqual([
      ['waiting', 'notify-run', 1, 'http://127.0.0.1:7420/runs/notify-run'],
      ['completed', 'notify-run', 2, 'http://127.0.0.1:7420/runs/notify-run'],
    ]);
    expect(bodies[0]?.reason).toMatch(/^usage_limit until \d{4}-\d\d-\d\dT/);
    // Stored too, in order, and never with the webhook's secret path.
    const stored = await store.listEvents('notify-run');
    expect(stored.slice(-2).map((e) => e.type)).toEqual(['notification', 'notification']);
    expect(JSON.stringify(stored)).not.toContain('SECRET');
  });
});

describe('configuration', () => {
  const ws = useWorkspace('x\n');
  const env = (extra: Record<string, string> = {}) => ({ HOME: ws.dir, XDG_CONFIG_HOME: join(ws.dir, 'cfg'), ...extra });
  const userConfig = (text: string) => {
    mkdirSync(join(ws.dir, 'cfg', 'ringmaster'), { recursive: true });
    writeFileSync(join(ws.dir, 'cfg', 'ringmaster', 'config.yml'), text);
  };

  it('takes webhooks from the user config and RINGMASTER_NOTIFY_WEBHOOKS, and shows them without their secret', () => {
    userConfig('notify:\n  on: [failed, stopped]\n  webhooks:\n    - url: https://hooks.slack.com/services/T0/B0/SECRET\n      format: slack\n    - url: https://example.com/hook/SECRET\n');
    const fromFile = loadConfig(ws.dir, env());
    expect(fromFile.settings.notify).toEqual({
      on: ['failed', 'stopped'],
      webhooks: [{ url: 'https://hooks.slack.com/services/T0/B0/SECRET', format: 'slack' }, { url: 'https://example.com/hook/SECRET', format: 'json' }],
      command: null,
    });
    expect(formatSetting('notify.webhooks', fromFile.settings.notify.webhooks)).toBe('slack https://hooks.slack.com/…, json https://example.com/…');
    const fromEnv = loadConfig(ws.dir, env({ RINGMASTER_NOTIFY_WEBHOOKS: ' ntfy=https://ntfy.sh/SECRET-topic\n discord=https://discord.com/api/webhooks/1/SECRET https://x.example/SECRET ', RINGMASTER_NOTIFY_ON: 'completed,limit' }));
    expect(fromEnv.settings.notify.webhooks).toEqual([
      { url: 'https://ntfy.sh/SECRET-topic', format: 'ntfy' },
      { url: 'https://discord.com/api/webhooks/1/SECRET', format: 'discord' },
      { url: 'https://x.example/SECRET', format: 'json' },
    ]);
    expect(fromEnv.settings.notify.on).toEqual(['completed', 'limit']);
    expect(fromEnv.sources.get('notify.webhooks')).toBe('env RINGMASTER_NOTIFY_WEBHOOKS');
  });

  it('refuses webhooks in a workspace ringmaster.yml, and bad values without repeating a URL', () => {
    writeFileSync(join(ws.dir, 'ringmaster.yml'), 'notify:\n  on: [completed]\n  webhooks:\n    - url: https://hooks.slack.com/services/T0/B0/SECRET\n      format: slack\n');
    expect(() => loadConfig(ws.dir, env())).toThrow(
      new ConfigError(
        { file: join(ws.dir, 'ringmaster.yml'), line: 3, key: 'notify.webhooks' },
        'webhook URLs are secrets and ringmaster.yml is committed with the code: set notify.webhooks in your user config ($XDG_CONFIG_HOME/ringmaster/config.yml) or in RINGMASTER_NOTIFY_WEBHOOKS (format=URL entries separated by spaces)',
      ),
    );
    writeFileSync(join(ws.dir, 'ringmaster.yml'), 'notify:\n  on: [completed]\n  command: [notify-me, --loud]\nserver:\n  public_url: https://rm.example.com/\n');
    const ok = loadConfig(ws.dir, env());
    expect([ok.settings.notify.on, ok.settings.notify.command, ok.settings.server.public_url]).toEqual([['completed'], ['notify-me', '--loud'], 'https://rm.example.com']);
    const bad = (extra: Record<string, string>) => {
      try {
        loadConfig(ws.dir, env(extra));
        return 'loaded';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(bad({ RINGMASTER_NOTIFY_WEBHOOKS: 'teams=https://x.example/SECRET' })).not.toContain('SECRET');
    expect(bad({ RINGMASTER_NOTIFY_WEBHOOKS: 'teams=https://x.example/SECRET' })).toContain('expected a list of webhooks');
    expect(bad({ RINGMASTER_NOTIFY_ON: 'completed,explode' })).toContain('unknown "explode" (expected some of: completed, failed, stopped, limit, waiting, no_progress, budget)');
  });
});
