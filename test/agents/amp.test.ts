// The Amp adapter against hand-written streams (test/fixtures/streams/amp, see the README) and the contract.
import { describe, expect, it } from 'vitest';
import { createAmpAdapter } from '../../src/agents/amp.js';
import { summarize } from './adapter-contract.js';
import { fixedDeps, fixtureContract, fixtureReader } from './fixture-suite.js';
import { invocationOptions, parseAll, SIGNAL } from './run-adapter.js';

const adapter = createAmpAdapter(fixedDeps(true));
const fixture = fixtureReader('amp');

await fixtureContract(adapter, 'amp', {
  success: { fixture: 'success', sessionId: 'T-5c1e7a2b-0d4f-4a8e-9b6c-3f2a1d0e9c8b', textIncludes: SIGNAL, usage: { tokensIn: 1260, tokensOut: 52, cacheRead: 1500, cacheWrite: 300 } },
  toolOutputSignal: 'tool-output-signal',
  errors: [
    { name: 'auth-error', kind: 'auth' },
    { name: 'usage-limit', kind: 'usage_limit', resetAtMs: null },
  ],
});

describe('amp adapter', () => {
  it('builds execute-mode argv, resume through threads continue', () => {
    const options = invocationOptions({ prompt: 'p', cwd: '/w', env: { AMP_API_KEY: 'k' } });
    expect(adapter.buildInvocation(options)).toEqual({
      command: 'amp',
      args: ['--execute', '--stream-json', '--dangerously-allow-all'],
      env: { AMP_API_KEY: 'k' },
      stdin: 'p',
    });
    expect(adapter.buildInvocation({ ...options, resumeSessionId: 'T-1', model: 'rush', permissionMode: 'default' }).args).toEqual([
      'threads',
      'continue',
      'T-1',
      '--execute',
      '--stream-json',
      '--mode',
      'rush',
    ]);
  });

  it('sums per-message usage (Amp reports no total) and reports no cost', async () => {
    const s = summarize(parseAll(adapter, await fixture('success')));
    expect(s.costUsd).toBeNull();
    expect(s.text).toBe('Creating hello.txt.Done. <promise>COMPLETE</promise>');
  });

  it('turns the error result into one classified error', async () => {
    const events = parseAll(adapter, await fixture('auth-error'));
    expect(events.filter((e) => e.type === 'error')).toEqual([
      { type: 'error', kind: 'auth', message: '401 Unauthorized: invalid API key. Set AMP_API_KEY or run amp login.', status: null },
    ]);
  });
});
