// The Claude adapter against recorded streams of the real CLI (test/fixtures/streams/claude) and the contract.
import { describe, expect, it } from 'vitest';
import { createClaudeAdapter, createClaudeParser } from '../../src/agents/claude.js';
import { summarize } from './adapter-contract.js';
import { FIXTURE_NOW, fixedDeps, fixtureContract, fixtureReader } from './fixture-suite.js';
import { invocationOptions, parseAll, SIGNAL } from './run-adapter.js';

const NOW = FIXTURE_NOW;
const deps = fixedDeps(false);
const adapter = createClaudeAdapter(deps);
const fixture = fixtureReader('claude');

await fixtureContract(adapter, 'claude', {
  success: { fixture: 'success', sessionId: '7a83aec2-0e50-4c1f-ab2b-5b95bd14ca1c', textIncludes: SIGNAL, usage: { tokensIn: 220, tokensOut: 35, cacheRead: 30, cacheWrite: 0 } },
  toolOutputSignal: 'tool-output-signal',
  errors: [
    { name: 'auth-401', kind: 'auth' },
    { name: 'overloaded-529', kind: 'overloaded' },
    { name: 'usage-limit-429', kind: 'usage_limit', resetAtMs: Date.UTC(2026, 10, 22, 17, 0) },
    { name: 'rate-limit-429', kind: 'rate_limit', resetAtMs: null },
  ],
});

describe('claude adapter', () => {
  it('builds the headless argv; bypass as root adds IS_SANDBOX=1', () => {
    const options = invocationOptions({ prompt: 'p', cwd: '/w', env: { A: '1' }, model: 'opus', resumeSessionId: 's-1' });
    const root = createClaudeAdapter({ ...deps, isRoot: true });
    const inv = root.buildInvocation(options);
    expect(inv).toEqual({
      command: 'claude',
      args: ['-p', '--output-format', 'stream-json', '--verbose', '--model', 'opus', '--dangerously-skip-permissions', '--resume', 's-1'],
      env: { A: '1', IS_SANDBOX: '1' },
      stdin: 'p',
    });
    expect(adapter.buildInvocation(options).env).toEqual({ A: '1' });
    expect(root.buildInvocation({ ...options, permissionMode: 'default' }).env).toEqual({ A: '1' });
    // Whatever the agent inherited: IS_SANDBOX=yes would make claude refuse every iteration as root.
    expect(root.buildInvocation({ ...options, env: { IS_SANDBOX: 'yes' } }).env).toEqual({ IS_SANDBOX: '1' });
    expect(root.buildInvocation({ ...options, permissionMode: 'default', env: { IS_SANDBOX: 'yes' } }).env).toEqual({ IS_SANDBOX: 'yes' });
  });

  it('takes the CLI cost and the result totals as cumulative', async () => {
    const events = parseAll(adapter, await fixture('success'));
    expect(events.filter((e) => e.type === 'cost')).toEqual([{ type: 'cost', usd: 0.0015860000000000002, cumulative: true }]);
    expect(events.at(-1)).toEqual({ type: 'result', isError: false, text: 'Wrote hello.txt. <promise>COMPLETE</promise>' });
    // The result text repeats the assistant's last text: it is not emitted twice.
    expect(summarize(events).text).toBe('Writing hello.txt.Wrote hello.txt. <promise>COMPLETE</promise>');
  });

  it('emits the result text when no assistant text was streamed', () => {
    const events = createClaudeParser(deps).line(
      JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'done <promise>COMPLETE</promise>', session_id: 's' }),
    );
    expect(events).toEqual([
      { type: 'session', id: 's', model: null },
      { type: 'text', text: 'done <promise>COMPLETE</promise>' },
      { type: 'result', isError: false, text: 'done <promise>COMPLETE</promise>' },
    ]);
  });

  it('reads a rejected rate_limit_event with resetsAt and a usage_limit_reached assistant error', () => {
    const parser = createClaudeParser(deps);
    const resetsAt = NOW / 1000 + 7200;
    expect(
      parser.line(JSON.stringify({ type: 'rate_limit_event', rate_limit_info: { status: 'allowed_warning', resetsAt, rateLimitType: 'five_hour' } })),
    ).toEqual([]);
    expect(
      parser.line(JSON.stringify({ type: 'rate_limit_event', rate_limit_info: { status: 'rejected', resetsAt, rateLimitType: 'five_hour' } })),
    ).toEqual([{ type: 'limit', kind: 'usage_limit', resetAtMs: NOW + 7_200_000, message: 'Claude five_hour limit reached' }]);
    const second = createClaudeParser(deps).line(
      JSON.stringify({
        type: 'assistant',
        error: 'usage_limit_reached',
        api_error_status: 429,
        message: { model: '<synthetic>', content: [{ type: 'text', text: "You've hit your session limit · resets 3pm" }] },
      }),
    );
    expect(second).toEqual([
      { type: 'limit', kind: 'usage_limit', resetAtMs: Date.UTC(2026, 10, 22, 15, 0), message: "You've hit your session limit · resets 3pm" },
    ]);
  });

  it('reports an error result without a classified assistant error', () => {
    const events = createClaudeParser(deps).line(
      JSON.stringify({ type: 'result', subtype: 'error_max_turns', is_error: true, errors: ['Reached maximum number of turns (3)'] }),
    );
    expect(events).toEqual([
      { type: 'error', kind: 'agent_error', message: 'Reached maximum number of turns (3)', status: null },
      { type: 'result', isError: true, text: null },
    ]);
  });

  it('classifies exits without events: missing binary and auth text', () => {
    expect(adapter.classifyExit(127, '')?.kind).toBe('missing_binary');
    expect(adapter.classifyExit(1, 'Invalid API key · Please run /login')?.kind).toBe('auth');
    expect(adapter.classifyExit(1, 'something else broke')).toBeNull();
  });
});
