// The Cursor adapter against hand-written streams (test/fixtures/streams/cursor, see the README) and the contract.
import { describe, expect, it } from 'vitest';
import { createCursorAdapter } from '../../src/agents/cursor.js';
import { summarize } from './adapter-contract.js';
import { FIXTURE_NOW, fixedDeps, fixtureContract, fixtureReader } from './fixture-suite.js';
import { invocationOptions, parseAll, SIGNAL } from './run-adapter.js';

const adapter = createCursorAdapter(fixedDeps(true));
const fixture = fixtureReader('cursor');

await fixtureContract(
  adapter,
  'cursor',
  {
    success: { fixture: 'success', sessionId: 'c6b62c6f-7ead-4fd6-9922-e952131177ff', textIncludes: SIGNAL, usage: null },
    toolOutputSignal: 'tool-output-signal',
    errors: [
      { name: 'auth-error', kind: 'auth' },
      { name: 'usage-limit', kind: 'usage_limit', resetAtMs: FIXTURE_NOW + 3 * 3_600_000 },
    ],
  },
  { promptInArgv: true },
);

describe('cursor adapter', () => {
  it('builds print-mode argv with the prompt as one argument after --', () => {
    const options = invocationOptions({ prompt: '-rf now', cwd: '/w', env: {}, model: 'sonnet-4.5', resumeSessionId: 'chat-1' });
    expect(adapter.buildInvocation(options)).toEqual({
      command: 'cursor-agent',
      args: ['-p', '--output-format', 'stream-json', '--model', 'sonnet-4.5', '--force', '--resume', 'chat-1', '--', '-rf now'],
      env: {},
      stdin: null,
    });
  });

  it('ignores the echoed prompt and dedupes the result text', async () => {
    const events = parseAll(adapter, await fixture('success'));
    expect(summarize(events).text).toBe('Creating hello.txt.Done. <promise>COMPLETE</promise>');
    expect(events.filter((e) => e.type === 'tool_call')).toEqual([
      { type: 'tool_call', name: 'write', input: { path: 'hello.txt', fileText: 'hello\n', toolCallId: 'toolu_vrtx_01' } },
    ]);
    expect(events.filter((e) => e.type === 'tool_result')).toEqual([
      { type: 'tool_result', name: 'write', output: '{"path":"/work/project/hello.txt","linesCreated":1,"fileSize":6}', isError: false },
    ]);
  });
});
