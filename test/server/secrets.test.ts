// Secrets of the server's environment never leave it: not in the API's answers (run detail and its spec,
// events, logs, activity read back, error messages), not in WebSocket messages (events, live activity), not in
// the data directory. A run the server takes over later gets them back from its environment.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerMessage } from '../../src/server/schemas.js';
import { connect, startTestServer, until, useRepos, type TestServer } from './harness.js';
import { everyFileText } from '../helpers/files.js';

let t: TestServer | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});
const repo = useRepos();

const SECRETS = {
  ANTHROPIC_API_KEY: 'sk-ant-api03-Qw8eRt5YuI2oP4aS6dF9gH1jK3lZ-BBBB',
  GITHUB_TOKEN: 'ghp_S3rv3rT0k3nV4lu3F0rT3st1ngPurp0s3s',
  MY_DB_PASSWORD: 'tr0ub4dor-and-3-more-words',
};

/** An agent that prints every secret (split across writes, on stdout and stderr), records its argv and prompt, and fails quoting one. */
function leakyAgent(dir: string): string {
  const script = join(dir, 'leaky.mjs');
  writeFileSync(
    script,
    `import { writeFileSync } from 'node:fs';
let prompt = '';
process.stdin.on('data', (c) => (prompt += c));
process.stdin.on('end', async () => {
  writeFileSync('argv.txt', process.argv.slice(2).join(' '));
  writeFileSync('prompt.txt', prompt);
  const key = process.env.ANTHROPIC_API_KEY;
  const pause = () => new Promise((r) => setTimeout(r, 30));
  process.stdout.write('my key is ' + key.slice(0, 12));
  await pause();
  process.stdout.write(key.slice(12) + '\\n');
  process.stderr.write('token=' + process.env.GITHUB_TOKEN + '\\n');
  await pause();
  process.stdout.write('fatal: bad password ' + process.env.MY_DB_PASSWORD + '\\n');
  process.exitCode = 1;
});
`,
  );
  return script;
}

function expectNoSecret(text: string, where: string): void {
  for (const value of Object.values(SECRETS)) expect(text.includes(value), `${where} contains ${value}`).toBe(false);
}


type EventMessage = Extract<ServerMessage, { type: 'event' }>;
const isEvent = (m: ServerMessage): m is EventMessage => m.type === 'event';

describe('the server and secrets', () => {
  it('answers, WebSocket messages and stored data carry none; a run taken over gets them back', async () => {
    t = await startTestServer({ env: SECRETS });
    const dir = repo();
    const client = await connect(t.base, t.auth);
    client.send({ type: 'subscribe', runs: '*', activity: 'full' });
    const body = {
      workspace: dir,
      prompt: `Log in with ${SECRETS.MY_DB_PASSWORD} and work.`,
      agent_command: [process.execPath, leakyAgent(dir), '--token', SECRETS.GITHUB_TOKEN],
      max_iterations: 1,
      checkpoint_interval: 0,
      cooldown: 0,
    };
    const created = await t.request('/api/runs', { body });
    expect(created.status).toBe(201);
    const { id } = created.body as { id: string };
    const finished = (m: ServerMessage): m is EventMessage => isEvent(m) && m.run_id === id && m.event.type === 'run_finished';
    await client.waitFor(finished, 'the end of the run');
    const answers = await Promise.all([
      t.request('/api/runs'),
      t.request(`/api/runs/${id}`),
      t.request(`/api/runs/${id}/events`),
      t.request(`/api/runs/${id}/logs?iteration=1`),
      t.request(`/api/runs/${id}/activity?iteration=1`),
      t.request('/api/runs', { body: { ...body, max_cost: SECRETS.ANTHROPIC_API_KEY } }),
    ]);
    for (const [i, answer] of answers.entries()) expectNoSecret(answer.text, `answer ${i}`);
    expect(answers[5]?.status).toBe(400);
    expect((answers[5]?.body as { error: { message: string } }).error.message).toContain('[REDACTED:ANTHROPIC_API_KEY]');
    const detail = answers[1]?.body as { run: { spec: { agent: { command: string[] }; prompt: { text: string } } }; iterations: Array<{ error_message: string }> };
    expect(detail.run.spec.agent.command.slice(-2)).toEqual(['--token', '[REDACTED:GITHUB_TOKEN]']);
    expect(detail.run.spec.prompt.text).toBe('Log in with [REDACTED:MY_DB_PASSWORD] and work.');
    // The last line of output, whichever of stdout and stderr came last.
    expect(detail.iterations[0]?.error_message).toMatch(/^(fatal: bad password \[REDACTED:MY_DB_PASSWORD\]|token=\[REDACTED:GITHUB_TOKEN\])$/);
    expect((answers[3]?.body as { text: string }).text).toContain('my key is [REDACTED:ANTHROPIC_API_KEY]\n');
    expectNoSecret(JSON.stringify(client.messages), 'WebSocket messages');
    expect(client.messages.some((m) => m.type === 'activity' && m.run_id === id && JSON.stringify(m).includes('[REDACTED:ANTHROPIC_API_KEY]'))).toBe(true);
    expectNoSecret(everyFileText(t.home), 'the data directory');
    // Taken over (the run ended at its limit: extend continues it here): the agent gets the real values again.
    writeFileSync(join(dir, 'argv.txt'), '');
    const extended = await t.request(`/api/runs/${id}/extend`, { body: { iterations: 1 } });
    expect((extended.body as { answer: string }).answer).toBe('accepted');
    await until('the second iteration', () => (readFileSync(join(dir, 'argv.txt'), 'utf8') !== '' ? true : null));
    expect(readFileSync(join(dir, 'argv.txt'), 'utf8')).toBe(`--token ${SECRETS.GITHUB_TOKEN}`);
    expect(readFileSync(join(dir, 'prompt.txt'), 'utf8')).toContain(`Log in with ${SECRETS.MY_DB_PASSWORD} and work.`);
    await until('the run to end again', async () => ((await t?.request(`/api/runs/${id}`))?.body as { run: { status: string } }).run.status !== 'running' ? true : null);
    expectNoSecret(everyFileText(t.home), 'the data directory after the second iteration');
    await client.close();
  });
});
