// The WebSocket: replay after `since` then live events, across a disconnect mid-run (no gap, no duplicate);
// activity of named runs; runs driven by another process (a terminal) reach it through the store; a slow
// client is disconnected with a reason while the loop goes on.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerMessage } from '../../src/server/schemas.js';
import { SLOW_CLIENT_CLOSE } from '../../src/server/ws-hub.js';
import { BIN, planAgent, startCli } from '../helpers/cli.js';
import { connect, startTestServer, until, useRepos, type TestServer } from './harness.js';

let t: TestServer | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});

const repo = useRepos();

type EventMessage = Extract<ServerMessage, { type: 'event' }>;
const isEvent = (m: ServerMessage): m is EventMessage => m.type === 'event';
const agentCount = (dir: string): number => (existsSync(join(dir, '.plan-agent-count')) ? Number(readFileSync(join(dir, '.plan-agent-count'), 'utf8')) : 0);

describe('WebSocket /api/ws', () => {
  it('a client that reconnects with its last seq misses nothing and gets nothing twice', async () => {
    t = await startTestServer();
    const dir = repo();
    const first = await connect(t.base, t.auth);
    first.send({ type: 'subscribe', runs: '*' });
    await first.waitFor((m): m is Extract<ServerMessage, { type: 'subscribed' }> => m.type === 'subscribed', 'subscribed');
    const { id } = (await t.request('/api/runs', { body: { workspace: dir, prompt: 'w', agent_command: planAgent('gate,gate,gate,complete'), cooldown: 0, checkpoint_interval: 0 } })).body as { id: string };
    await until('iteration 1', () => (agentCount(dir) === 1 ? true : null));
    writeFileSync(join(dir, '.gate-1'), '');
    await first.waitFor((m): m is EventMessage => isEvent(m) && m.event.type === 'iteration_started' && m.event.iteration === 2, 'iteration 2 started');
    await first.close();
    const seen = first.messages.filter(isEvent).filter((m) => m.run_id === id);
    const last = seen.at(-1)?.seq ?? 0;

    // Events go on while nobody listens.
    writeFileSync(join(dir, '.gate-2'), '');
    await until('iteration 3', () => (agentCount(dir) === 3 ? true : null));
    const second = await connect(t.base, t.auth);
    second.send({ type: 'subscribe', runs: [id], since: { [id]: last } });
    writeFileSync(join(dir, '.gate-3'), '');
    await second.waitFor((m): m is EventMessage => isEvent(m) && m.event.type === 'run_finished', 'the end of the run');
    const after = second.messages.filter(isEvent);
    const seqs = [...seen, ...after].map((m) => m.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    for (const m of [...seen, ...after]) expect([m.run_id, m.seq, m.time]).toEqual([m.event.run_id, m.event.seq, m.event.time]);
    const stored = (await t.request(`/api/runs/${id}/events`)).body as { events: Array<{ seq: number; type: string }> };
    expect(stored.events.map((e) => [e.seq, e.type])).toEqual([...seen, ...after].map((m) => [m.seq, m.event.type]));
    // A named run gets its activity in full.
    expect(second.messages.some((m) => m.type === 'activity' && m.run_id === id && m.activity.kind === 'output' && m.activity.text.includes('passed gate 3'))).toBe(true);
    expect(second.messages.some((m) => m.type === 'activity' && m.run_id === id && m.activity.kind === 'output' && m.activity.text.includes('all done'))).toBe(true);
    await second.close();
  });

  it("sees a terminal's run live through the store, and stops it from the API", async () => {
    t = await startTestServer();
    const dir = repo();
    const client = await connect(t.base, t.auth);
    client.send({ type: 'subscribe', runs: '*' });
    const cli = startCli(['run', '--prompt', 'w', '--agent-command', planAgent('gate'), '--max-iterations', '3', '--checkpoint-interval', '0'], { cwd: dir, env: t.env });
    const started = await client.waitFor((m): m is EventMessage => isEvent(m) && m.event.type === 'iteration_started', 'the terminal run');
    const listed = (await t.request('/api/runs')).body as { runs: Array<{ id: string; status: string }> };
    expect(listed.runs).toEqual([expect.objectContaining({ id: started.run_id, status: 'running' })]);
    const stop = (await t.request(`/api/runs/${started.run_id}/stop`, { method: 'POST' })).body as { answer: string };
    expect(stop.answer).toBe('accepted');
    const ended = await cli.done;
    expect(ended.code).toBe(130);
    await client.waitFor((m): m is EventMessage => isEvent(m) && m.run_id === started.run_id && m.event.type === 'run_finished', 'its end');
    const mine = client.messages.filter(isEvent).filter((m) => m.run_id === started.run_id).map((m) => m.seq);
    expect(mine).toEqual(mine.map((_, i) => i + 1));
    await client.close();
  });

  it("'*' gets activity as summaries marked summary: true; a named run gets every piece whole, unmarked", async () => {
    t = await startTestServer();
    const dir = repo();
    const all = await connect(t.base, t.auth);
    all.send({ type: 'subscribe', runs: '*' });
    await all.waitFor((m): m is Extract<ServerMessage, { type: 'subscribed' }> => m.type === 'subscribed', 'subscribed');
    const script = join(dir, 'two-lines.sh');
    writeFileSync(script, '#!/bin/sh\ncat >/dev/null\nprintf "first line\\nsecond line\\n"\nwhile [ ! -e .gate ]; do sleep 0.05; done\necho "<promise>COMPLETE</promise>"\n', { mode: 0o755 });
    const { id } = (await t.request('/api/runs', { body: { workspace: dir, prompt: 'w', agent_command: script, checkpoint_interval: 0 } })).body as { id: string };
    const named = await connect(t.base, t.auth);
    named.send({ type: 'subscribe', runs: [id] });
    await named.waitFor((m): m is Extract<ServerMessage, { type: 'subscribed' }> => m.type === 'subscribed', 'subscribed');
    type Activity = Extract<ServerMessage, { type: 'activity' }>;
    const summary = await all.waitFor((m): m is Activity => m.type === 'activity' && m.run_id === id, 'a summary');
    expect(summary).toMatchObject({ summary: true, activity: { kind: 'output', text: 'second line' } });
    writeFileSync(join(dir, '.gate'), '');
    await named.waitFor((m): m is Activity => m.type === 'activity' && m.activity.kind === 'output' && m.activity.text.includes('COMPLETE'), 'the last output');
    const whole = named.messages.filter((m): m is Activity => m.type === 'activity');
    expect(whole.every((m) => m.summary === undefined)).toBe(true);
    await Promise.all([all.close(), named.close()]);
  });

  it('answers bad messages with an error and ping with pong', async () => {
    t = await startTestServer();
    const client = await connect(t.base, t.auth);
    client.send({ type: 'subscribe', runs: 5 });
    client.ws.send('not json');
    client.send({ type: 'ping' });
    await client.waitFor((m): m is Extract<ServerMessage, { type: 'pong' }> => m.type === 'pong', 'pong');
    expect(client.messages.filter((m) => m.type === 'error').map((m) => m.type === 'error' && m.error.code)).toEqual(['invalid_request', 'invalid_request']);
    expect(client.messages[0]).toMatchObject({ type: 'hello', version: 'test' });
    await client.close();
  });

  it('disconnects a client that stops reading, with a close reason, and the run goes on', async () => {
    t = await startTestServer({ maxBufferedBytes: 64 * 1024 });
    const dir = repo();
    const slow = await connect(t.base, t.auth);
    slow.send({ type: 'subscribe', runs: '*', activity: 'full' });
    await slow.waitFor((m): m is Extract<ServerMessage, { type: 'subscribed' }> => m.type === 'subscribed', 'subscribed');
    // Stop reading: the server's send queue for this client fills up.
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const flood = join(dir, 'flood.sh');
    writeFileSync(flood, '#!/bin/sh\ncat >/dev/null\nhead -c 8000000 /dev/zero | tr "\\0" "y"\necho "<promise>COMPLETE</promise>"\n', { mode: 0o755 });
    const { id } = (await t.request('/api/runs', { body: { workspace: dir, prompt: 'w', agent_command: flood, checkpoint_interval: 0 } })).body as { id: string };
    await until('the run to end', async () => (((await t?.request(`/api/runs/${id}`))?.body as { run: { status: string } }).run.status === 'completed' ? true : null));
    (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    const closed = await slow.closed;
    expect(closed.code).toBe(SLOW_CLIENT_CLOSE);
    expect(closed.reason).toBe('slow client: more than 65536 bytes waiting to be sent');
    expect(t.server.hub.size).toBe(0);
  });
});

describe('the CLI binary', () => {
  it('is built', () => expect(existsSync(BIN)).toBe(true));
});
