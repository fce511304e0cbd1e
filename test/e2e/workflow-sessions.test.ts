// End-to-end: a loop workflow drives the real Claude Code and Codex CLIs against the fake model servers, and
// the server sees whether iteration 2 continued iteration 1's conversation: with fresh_context: false it
// does (the agent was resumed, so the model remembers what it said), with fresh_context: true it does not.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { claudeFakeEnv, startFakeAnthropic, type FakeAnthropicServer, type FakeRequestContext, type FakeStep, type FakeTurn } from '../fakes/anthropic-server.js';
import { codexFakeEnv, startFakeResponses, writeCodexHome, type FakeResponsesServer, type ResponsesContext, type ResponsesStep, type ResponsesTurn } from '../fakes/openai-responses-server.js';
import { runCli } from '../helpers/cli.js';
import { agentEnv, completedIterations, createSandbox, runEvents, type Sandbox } from './real-cli.js';

let sandbox: Sandbox;
let anthropic: FakeAnthropicServer | null = null;
let responses: FakeResponsesServer | null = null;

beforeEach(() => {
  sandbox = createSandbox('workflow');
});
afterEach(async () => {
  await anthropic?.close();
  await responses?.close();
  anthropic = null;
  responses = null;
  sandbox.cleanup();
});

/** What the model says first; it can only repeat it in a later iteration if it sees the earlier conversation. */
const SECRET = 'The secret word is PAPAYA.';
const REMEMBERED = 'You asked before: the secret word was PAPAYA. <promise>COMPLETE</promise>';

/** The model's answer: the completion only when the request carries the earlier answer. */
function answer(body: unknown): string {
  return JSON.stringify(body).includes('PAPAYA') ? REMEMBERED : SECRET;
}

function writeWorkflow(agent: string, fresh: boolean): void {
  const dir = join(sandbox.repo, '.ringmaster', 'workflows');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'recall.yaml'),
    `name: recall\nagent: ${agent}\nloop:\n  until: COMPLETE\n  max_iterations: 2\n  fresh_context: ${fresh}\nprompt: |\n  Iteration $ITERATION of $MAX_ITERATIONS. Tell me the secret word; if you told me before, say so and print the completion promise.\n`,
  );
}

const RUN = ['workflow', 'run', 'recall', '--json', '--cooldown', '0s', '--checkpoint-interval', '0'];

/** Every conversation and step of the fake Anthropic server answers with `answer`. */
function anthropicScript(): FakeStep[][] {
  const turn = (ctx: FakeRequestContext): FakeTurn => ({ type: 'text', text: answer(ctx.body.messages) });
  return Array.from({ length: 3 }, () => Array.from({ length: 3 }, () => turn));
}

/** The same for the fake Responses server. */
function responsesScript(): ResponsesStep[][] {
  const turn = (ctx: ResponsesContext): ResponsesTurn => ({ type: 'text', text: answer(ctx.body.input) });
  return Array.from({ length: 3 }, () => Array.from({ length: 3 }, () => turn));
}

async function claudeRun(fresh: boolean) {
  writeWorkflow('claude', fresh);
  anthropic = await startFakeAnthropic({ conversations: anthropicScript() });
  const env = agentEnv(sandbox.home, { ...claudeFakeEnv(anthropic.url, join(sandbox.home, '.claude')), CLAUDE_CODE_MAX_RETRIES: '0' });
  const r = await runCli(RUN, { cwd: sandbox.repo, env });
  const main = anthropic.mainRequests();
  return { r, events: runEvents(r.stdout), main: main.map((q) => ({ conversation: q.conversation, text: JSON.stringify(q.body?.messages ?? []) })) };
}

async function codexRun(fresh: boolean) {
  writeWorkflow('codex', fresh);
  responses = await startFakeResponses({ conversations: responsesScript() });
  const codexHome = await writeCodexHome(join(sandbox.home, '.codex'), responses.url);
  const r = await runCli(RUN, { cwd: sandbox.repo, env: agentEnv(sandbox.home, codexFakeEnv(codexHome)) });
  const main = responses.mainRequests();
  return { r, events: runEvents(r.stdout), main: main.map((q) => ({ conversation: q.conversation, text: JSON.stringify(q.body?.input ?? []) })) };
}

for (const [agent, run] of [
  ['claude', claudeRun],
  ['codex', codexRun],
] as const) {
  it(`${agent}: fresh_context: false resumes the session, so iteration 2 carries iteration 1's conversation`, { timeout: 180_000 }, async () => {
    const { r, events, main } = await run(false);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const its = completedIterations(events);
    expect(its.map((e) => [e.iteration, e.outcome, e.unit?.iteration])).toEqual([
      [1, 'success', 1],
      [2, 'complete', 2],
    ]);
    expect(its[1]?.session_id).toBe(its[0]?.session_id);
    expect(main).toHaveLength(2);
    expect(main[1]?.conversation).toBe(main[0]?.conversation);
    expect(main[1]?.text).toContain('Iteration 1 of 2');
    expect(main[1]?.text).toContain(SECRET);
    expect(main[1]?.text).toContain('Iteration 2 of 2');
    expect(events.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', stop_reason: 'success_signal', message: 'Loop complete: recall (2 iterations)' });
  });

  it(`${agent}: fresh_context: true starts every iteration in a new session that knows nothing of iteration 1`, { timeout: 180_000 }, async () => {
    const { r, events, main } = await run(true);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(2);
    const its = completedIterations(events);
    expect(its.map((e) => [e.iteration, e.outcome])).toEqual([
      [1, 'success'],
      [2, 'success'],
    ]);
    expect(its[1]?.session_id).not.toBe(its[0]?.session_id);
    expect(main).toHaveLength(2);
    expect(main[1]?.conversation).not.toBe(main[0]?.conversation);
    expect(main[1]?.text).not.toContain('Iteration 1 of 2');
    expect(main[1]?.text).not.toContain('PAPAYA');
    expect(events.at(-1)).toMatchObject({ type: 'run_finished', status: 'failed', stop_reason: 'max_iterations', message: 'Max iterations (2) reached without completion signal "COMPLETE"' });
  });
}
