// The Copilot CLI adapter against streams recorded from the real CLI (test/fixtures/streams/copilot) and the
// contract; tokens come from the recorded session logs under test/fixtures/streams/copilot/session-state.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copilotSessionStateDir, createCopilotAdapter, createCopilotParser } from '../../src/agents/copilot.js';
import { copilotUsageFromLog, readCopilotSessionUsage } from '../../src/agents/copilot-usage.js';
import { summarize } from './adapter-contract.js';
import { FIXTURE_NOW, fixedDeps, fixtureContract, fixtureReader } from './fixture-suite.js';
import { FIXTURES_DIR, invocationOptions, parseAll, SIGNAL } from './run-adapter.js';

const NOW = FIXTURE_NOW;
const deps = fixedDeps(false);
const STATE_DIR = join(FIXTURES_DIR, 'copilot', 'session-state');
const adapter = createCopilotAdapter(deps, STATE_DIR);
const fixture = fixtureReader('copilot');

await fixtureContract(adapter, 'copilot', {
  success: { fixture: 'complete', sessionId: '9cd6b1c2-1963-4d59-8e3b-18fa2936e166', textIncludes: `All tasks are done. ${SIGNAL}`, usage: { tokensIn: 900, tokensOut: 15, cacheRead: 0, cacheWrite: 0 } },
  toolOutputSignal: 'signal-in-tool-output',
  errors: [
    { name: 'auth-401', kind: 'auth' },
    { name: 'rate-429 after its own retries', fixture: 'rate-429', kind: 'rate_limit', resetAtMs: NOW + 20_000 },
  ],
});

describe('copilot adapter', () => {
  it('builds `copilot --output-format json` with the prompt on stdin', () => {
    const options = invocationOptions({ prompt: 'do it', cwd: '/w', env: { A: '1' }, model: 'gpt-4.1', resumeSessionId: 's-1', extraArgs: ['--no-color'] });
    expect(adapter.buildInvocation(options)).toEqual({
      command: 'copilot',
      args: ['--output-format', 'json', '--model', 'gpt-4.1', '--yolo', '--resume', 's-1', '--no-color'],
      env: { A: '1' },
      stdin: 'do it',
    });
    expect(adapter.buildInvocation({ ...options, permissionMode: 'default', model: null, resumeSessionId: null, extraArgs: [] }).args).toEqual([
      '--output-format',
      'json',
    ]);
  });

  it('finds the session-state directory from --config-dir, COPILOT_HOME or HOME', () => {
    expect(copilotSessionStateDir({ HOME: '/h' }, [])).toBe('/h/.copilot/session-state');
    expect(copilotSessionStateDir({ HOME: '/h', COPILOT_HOME: '/c' }, [])).toBe('/c/session-state');
    expect(copilotSessionStateDir({ HOME: '/h', COPILOT_HOME: '/c' }, ['--config-dir', '/d'])).toBe('/d/session-state');
  });

  it('parses a run that writes a file: text, tool call and result, session, result, then tokens from the log', async () => {
    const events = parseAll(adapter, await fixture('write-file'));
    expect(events).toEqual([
      { type: 'tool_call', name: 'create', input: { path: expect.stringMatching(/\/hello\.txt$/) as unknown, file_text: 'hello from copilot\n' } },
      { type: 'tool_result', name: 'create', output: expect.stringMatching(/^Created file \/.*\/hello\.txt with 19 characters$/) as unknown, isError: false },
      { type: 'text', text: 'I wrote hello.txt.' },
      { type: 'session', id: 'd72275f7-61a9-4cb3-bda7-08d16c2f3e8e', model: 'gpt-4.1' },
      { type: 'result', isError: false, text: null },
      { type: 'usage', usage: { tokensIn: 2500, tokensOut: 52, cacheRead: 0, cacheWrite: 0 }, model: 'gpt-4.1', cumulative: true },
    ]);
  });

  it('counts only the resumed process tokens (shutdown totals are cumulative over the session)', async () => {
    const s = summarize(parseAll(adapter, await fixture('resumed')));
    expect(s.text).toBe('second answer');
    expect(s.sessionId).toBe('621f4aa7-40ea-4b5d-83a6-3fa999efe81f');
    expect(s.usage).toEqual({ tokensIn: 2000, tokensOut: 20, cacheRead: 0, cacheWrite: 0 });
  });

  it('leaves tokens unknown when the session log is missing or has no shutdown', async () => {
    const s = summarize(parseAll(createCopilotAdapter(deps, '/nonexistent/session-state'), await fixture('complete')));
    expect(s.usage).toBeNull();
    expect(readCopilotSessionUsage('/nonexistent/events.jsonl')).toBeNull();
    expect(copilotUsageFromLog('{"type":"session.start"}\nnot json\n')).toBeNull();
  });

  it('classifies session errors by errorType, with the reset time of a rate limit', async () => {
    const auth = parseAll(adapter, await fixture('auth-401')).filter((e) => e.type === 'error');
    expect(auth).toEqual([
      {
        type: 'error',
        kind: 'auth',
        message: expect.stringMatching(/^Authentication failed with provider at http:\/\/127\.0\.0\.1:\d+\/v1 \(HTTP 401\)\. Check your COPILOT_PROVIDER_API_KEY/) as unknown,
        status: 401,
      },
    ]);
    const parser = createCopilotParser(deps);
    const line = (data: object) => JSON.stringify({ type: 'session.error', data });
    expect(parser.line(line({ errorType: 'quota', message: 'You have no quota left. Resets in 2 hours.' }))).toEqual([
      { type: 'limit', kind: 'usage_limit', resetAtMs: NOW + 7_200_000, message: 'You have no quota left. Resets in 2 hours.' },
    ]);
    expect(parser.line(line({ errorType: 'query', message: 'No response was returned. Send your message again to retry.' }))).toEqual([
      { type: 'error', kind: 'agent_error', message: 'No response was returned. Send your message again to retry.', status: null },
    ]);
  });

  it('reads every recorded stream without a malformed line', async () => {
    for (const name of ['write-file', 'complete', 'signal-in-tool-output', 'resumed', 'auth-401', 'rate-429']) {
      expect([name, summarize(parseAll(adapter, await fixture(name))).malformed]).toEqual([name, 0]);
    }
  });

  it('ignores sub-agent messages, deltas and the echoed prompt', () => {
    const parser = createCopilotParser(deps);
    expect(parser.line(JSON.stringify({ type: 'user.message', data: { content: '<promise>COMPLETE</promise>' } }))).toEqual([]);
    expect(parser.line(JSON.stringify({ type: 'assistant.message_delta', data: { deltaContent: '<promise>COMPLETE</promise>' } }))).toEqual([]);
    expect(parser.line(JSON.stringify({ type: 'assistant.message', agentId: 'a1', data: { content: '<promise>COMPLETE</promise>' } }))).toEqual([]);
    expect(parser.end()).toEqual([]);
  });
});
