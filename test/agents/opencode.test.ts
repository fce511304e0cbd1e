// The opencode adapter against streams recorded from the real CLI (test/fixtures/streams/opencode) and the contract.
import { describe, expect, it } from 'vitest';
import { createOpencodeAdapter, createOpencodeParser } from '../../src/agents/opencode.js';
import { summarize } from './adapter-contract.js';
import { FIXTURE_NOW, fixedDeps, fixtureContract, fixtureReader } from './fixture-suite.js';
import { invocationOptions, parseAll, SIGNAL } from './run-adapter.js';

const NOW = FIXTURE_NOW;
const deps = fixedDeps(false);
const adapter = createOpencodeAdapter(deps);
const fixture = fixtureReader('opencode');

await fixtureContract(adapter, 'opencode', {
  success: { fixture: 'complete', sessionId: 'ses_dfca2b742ffeo9saycdzC0jvMI', textIncludes: `All tasks are done. ${SIGNAL}`, usage: { tokensIn: 900, tokensOut: 15, cacheRead: 0, cacheWrite: 0 } },
  toolOutputSignal: 'signal-in-tool-output',
  errors: [
    { name: 'auth-401', kind: 'auth' },
    { name: 'rate-429 after its own retries', fixture: 'rate-429', kind: 'rate_limit', resetAtMs: NOW + 20_000 },
  ],
});

describe('opencode adapter', () => {
  it('builds `opencode run --format json` with the prompt on stdin', () => {
    const options = invocationOptions({ prompt: 'do it', cwd: '/w', env: { A: '1' }, model: 'anthropic/claude-sonnet-4', resumeSessionId: 'ses_1', extraArgs: ['--agent', 'build'] });
    expect(adapter.buildInvocation(options)).toEqual({
      command: 'opencode',
      args: ['run', '--format', 'json', '--model', 'anthropic/claude-sonnet-4', '--auto', '--session', 'ses_1', '--agent', 'build'],
      env: { A: '1' },
      stdin: 'do it',
    });
    expect(adapter.buildInvocation({ ...options, permissionMode: 'default', model: null, resumeSessionId: null, extraArgs: [] }).args).toEqual([
      'run',
      '--format',
      'json',
    ]);
  });

  it('parses a run that writes a file: tool call and result, text, per-step tokens and cost as increments', async () => {
    const events = parseAll(adapter, await fixture('write-file'));
    expect(events).toEqual([
      { type: 'session', id: 'ses_dfca2da1bffeZyaLyvQ7CdGUmn', model: null },
      { type: 'tool_call', name: 'write', input: { filePath: expect.stringMatching(/\/hello\.txt$/) as unknown, content: 'hello from opencode\n' } },
      { type: 'tool_result', name: 'write', output: 'Wrote file successfully.', isError: false },
      { type: 'usage', usage: { tokensIn: 1200, tokensOut: 40, cacheRead: 0, cacheWrite: 0 }, model: null, cumulative: false },
      { type: 'cost', usd: 0.0028, cumulative: false },
      { type: 'text', text: 'I wrote hello.txt.' },
      { type: 'usage', usage: { tokensIn: 1300, tokensOut: 12, cacheRead: 0, cacheWrite: 0 }, model: null, cumulative: false },
      { type: 'cost', usd: 0.00272, cumulative: false },
      // The step that ended with reason "stop" ends the turn.
      { type: 'result', isError: false, text: null },
    ]);
    const s = summarize(events);
    expect(s.usage).toEqual({ tokensIn: 2500, tokensOut: 52, cacheRead: 0, cacheWrite: 0 });
    expect(s.costUsd).toBeCloseTo(0.00552, 10);
  });

  it('drops a zero cost reported with tokens (opencode has no price for the model), keeps reasoning as output', () => {
    const parser = createOpencodeParser(deps);
    const events = parser.line(
      JSON.stringify({
        type: 'step_finish',
        sessionID: 'ses_x',
        part: { type: 'step-finish', tokens: { input: 10, output: 5, reasoning: 7, cache: { read: 3, write: 2 } }, cost: 0 },
      }),
    );
    expect(events).toEqual([
      { type: 'session', id: 'ses_x', model: null },
      { type: 'usage', usage: { tokensIn: 10, tokensOut: 12, cacheRead: 3, cacheWrite: 2 }, model: null, cumulative: false },
    ]);
  });

  it('reports a failed tool call as an error result and keeps tool output out of the text', async () => {
    const parser = createOpencodeParser(deps);
    const events = parser.line(
      JSON.stringify({
        type: 'tool_use',
        sessionID: 'ses_y',
        part: { type: 'tool', tool: 'write', state: { status: 'error', input: { filePath: '/x' }, error: 'The user rejected permission to use this specific tool call.' } },
      }),
    );
    expect(events.slice(1)).toEqual([
      { type: 'tool_call', name: 'write', input: { filePath: '/x' } },
      { type: 'tool_result', name: 'write', output: 'The user rejected permission to use this specific tool call.', isError: true },
    ]);
    expect(summarize(parseAll(adapter, await fixture('signal-in-tool-output'))).text).toBe('The command ran; I am not done yet.');
  });

  it('classifies the 401 error event with its status', async () => {
    const errors = parseAll(adapter, await fixture('auth-401')).filter((e) => e.type === 'error');
    expect(errors).toEqual([{ type: 'error', kind: 'auth', message: 'Incorrect API key provided: sk-fake.', status: 401 }]);
  });

  it('reads every recorded stream without a malformed line', async () => {
    for (const name of ['write-file', 'complete', 'signal-in-tool-output', 'auth-401', 'rate-429']) {
      expect([name, summarize(parseAll(adapter, await fixture(name))).malformed]).toEqual([name, 0]);
    }
  });

  it('classifies exits from the output tail', () => {
    expect(adapter.classifyExit(127, 'opencode: command not found')?.kind).toBe('missing_binary');
    expect(adapter.classifyExit(1, 'Error: 503 Service Unavailable')?.kind).toBe('overloaded');
    expect(adapter.classifyExit(0, '')).toBeNull();
  });
});
