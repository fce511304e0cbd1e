// The Gemini CLI adapter against streams recorded from the real CLI (test/fixtures/streams/gemini) and the contract.
import { describe, expect, it } from 'vitest';
import { apiErrorStatus, createGeminiAdapter, createGeminiParser } from '../../src/agents/gemini.js';
import { summarize } from './adapter-contract.js';
import { FIXTURE_NOW, fixedDeps, fixtureContract, fixtureReader } from './fixture-suite.js';
import { invocationOptions, parseAll, SIGNAL } from './run-adapter.js';

const NOW = FIXTURE_NOW;
const deps = fixedDeps(false);
const adapter = createGeminiAdapter(deps);
const fixture = fixtureReader('gemini');

await fixtureContract(adapter, 'gemini', {
  success: { fixture: 'complete', sessionId: '72625092-350d-473e-9e9f-a7fb6d8d21f7', textIncludes: `All tasks are done. ${SIGNAL}`, usage: { tokensIn: 900, tokensOut: 15, cacheRead: 0, cacheWrite: 0 } },
  toolOutputSignal: 'signal-in-tool-output',
  errors: [
    { name: 'auth-401', kind: 'auth' },
    { name: 'quota-429', kind: 'usage_limit', resetAtMs: NOW + 3600_000 },
    { name: 'exit 41 without output', stdout: '', kind: 'auth', exitCode: 41, stderr: 'When using Gemini API, you must specify the GEMINI_API_KEY environment variable.' },
    { name: 'exit 173 (HTTP 429)', stdout: '', kind: 'rate_limit', exitCode: 173, stderr: 'boom' },
    { name: 'exit 247 (HTTP 503)', stdout: '', kind: 'overloaded', exitCode: 247, stderr: 'boom' },
  ],
});

describe('gemini adapter', () => {
  it('builds the headless argv with an empty -p: the prompt goes on stdin', () => {
    const options = invocationOptions({ prompt: 'do it', cwd: '/w', env: { A: '1' }, model: 'gemini-2.5-pro', resumeSessionId: 's-1', extraArgs: ['--debug'] });
    expect(adapter.buildInvocation(options)).toEqual({
      command: 'gemini',
      args: ['-p', '', '--output-format', 'stream-json', '--model', 'gemini-2.5-pro', '--yolo', '--skip-trust', '--resume', 's-1', '--debug'],
      env: { A: '1' },
      stdin: 'do it',
    });
    expect(adapter.buildInvocation({ ...options, permissionMode: 'default', resumeSessionId: null, model: null, extraArgs: [] }).args).toEqual([
      '-p',
      '',
      '--output-format',
      'stream-json',
      '--skip-trust',
    ]);
  });

  it('parses a run that writes a file: session, tool call and result, one joined text, cumulative usage', async () => {
    const events = parseAll(adapter, await fixture('write-file'));
    expect(events).toEqual([
      { type: 'session', id: 'd4df5683-376f-43ff-93a3-1a4813cb33e6', model: 'gemini-2.5-pro' },
      { type: 'tool_call', name: 'write_file', input: { file_path: expect.stringMatching(/\/hello\.txt$/) as unknown, content: 'hello from gemini\n' } },
      { type: 'tool_result', name: 'write_file', output: '', isError: false },
      { type: 'text', text: 'I wrote hello.txt.' },
      { type: 'usage', usage: { tokensIn: 2500, tokensOut: 52, cacheRead: 0, cacheWrite: 0 }, model: 'gemini-2.5-pro', cumulative: true },
      { type: 'result', isError: false, text: null },
    ]);
    expect(events.some((e) => e.type === 'cost')).toBe(false);
  });

  it('never takes text from the echoed prompt or tool output', async () => {
    const complete = summarize(parseAll(adapter, await fixture('complete')));
    expect(complete.text).toBe('All tasks are done. <promise>COMPLETE</promise>');
    const tool = parseAll(adapter, await fixture('signal-in-tool-output'));
    expect(tool.filter((e) => e.type === 'text')).toEqual([{ type: 'text', text: 'The command ran; I am not done yet.' }]);
    expect(tool.filter((e) => e.type === 'tool_result')).toEqual([
      { type: 'tool_result', name: 'run_shell_command', output: '<promise>COMPLETE</promise>', isError: false },
    ]);
  });

  it('classifies the 401 result with its status and the quota result as a usage limit with its reset', async () => {
    const auth = parseAll(adapter, await fixture('auth-401'));
    expect(auth.filter((e) => e.type === 'error')).toEqual([
      {
        type: 'error',
        kind: 'auth',
        message: '[API Error: {"error":{"code":401,"message":"API key not valid. Please pass a valid API key.","status":"UNAUTHENTICATED"}}]',
        status: 401,
      },
    ]);
    expect(auth.at(-1)).toEqual({ type: 'result', isError: true, text: null });
    const quota = parseAll(adapter, await fixture('quota-429'));
    const limit = quota.find((e) => e.type === 'limit');
    expect(limit).toMatchObject({ type: 'limit', kind: 'usage_limit', resetAtMs: NOW + 3600_000 });
  });

  it('flushes pending deltas before other events and at the end of the stream', () => {
    const parser = createGeminiParser(deps);
    const delta = (content: string) => JSON.stringify({ type: 'message', role: 'assistant', content, delta: true });
    expect(parser.line(delta('<promise>COMP'))).toEqual([]);
    expect(parser.line(delta('LETE</promise>'))).toEqual([]);
    expect(parser.line(JSON.stringify({ type: 'tool_use', tool_name: 'ls', tool_id: 't1', parameters: {} }))).toEqual([
      { type: 'text', text: '<promise>COMPLETE</promise>' },
      { type: 'tool_call', name: 'ls', input: {} },
    ]);
    expect(parser.line(delta('tail'))).toEqual([]);
    expect(parser.end()).toEqual([{ type: 'text', text: 'tail' }]);
    expect(parser.line(JSON.stringify({ type: 'error', severity: 'warning', message: 'Loop detected' }))).toEqual([]);
  });

  it('reads the HTTP status out of API error texts', () => {
    expect(apiErrorStatus('[API Error: {"error":{"code":429,"message":"x"}}]')).toBe(429);
    expect(apiErrorStatus('status: 503 Service Unavailable')).toBe(503);
    expect(apiErrorStatus('no status here')).toBeNull();
  });

  it('reads every recorded stream without a malformed line', async () => {
    for (const name of ['write-file', 'complete', 'signal-in-tool-output', 'auth-401', 'quota-429']) {
      expect([name, summarize(parseAll(adapter, await fixture(name))).malformed]).toEqual([name, 0]);
    }
  });

  it('classifies exits: missing binary, known codes, else null', () => {
    expect(adapter.classifyExit(127, 'sh: gemini: command not found')?.kind).toBe('missing_binary');
    expect(adapter.classifyExit(53, '')).toEqual({ kind: 'agent_error', message: 'Gemini CLI reached its session turn limit' });
    expect(adapter.classifyExit(173, 'You have exhausted your daily quota on this model.')?.kind).toBe('usage_limit');
    expect(adapter.classifyExit(0, '')).toBeNull();
    expect(adapter.classifyExit(1, 'something odd')).toBeNull();
  });
});
