// The Codex adapter against recorded streams of the real CLI (test/fixtures/streams/codex) and the contract.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codexConfiguredModel, createCodexAdapter, createCodexParser } from '../../src/agents/codex.js';
import { summarize } from './adapter-contract.js';
import { fixedDeps, fixtureContract, fixtureReader } from './fixture-suite.js';
import { invocationOptions, parseAll, SIGNAL } from './run-adapter.js';

const deps = fixedDeps(true);
const adapter = createCodexAdapter(deps);
const fixture = fixtureReader('codex');

await fixtureContract(adapter, 'codex', {
  success: { fixture: 'success', sessionId: '01a20360-488b-75c0-9128-44610d2fb4c5', textIncludes: SIGNAL, usage: { tokensIn: 350, tokensOut: 70, cacheRead: 50, cacheWrite: 0 } },
  toolOutputSignal: 'tool-output-signal',
  errors: [
    { name: 'auth-401', kind: 'auth' },
    { name: 'overloaded-500', kind: 'overloaded' },
    { name: 'usage-limit-429', kind: 'usage_limit', resetAtMs: Date.UTC(2026, 10, 22, 14, 9) },
    { name: 'rate-limit-429', kind: 'rate_limit', resetAtMs: null },
  ],
});

describe('codex adapter', () => {
  it('builds exec argv, and resume with the prompt from stdin', () => {
    const options = invocationOptions({ prompt: 'p', cwd: '/w', env: { CODEX_HOME: '/nonexistent' }, model: 'gpt-5.5' });
    expect(adapter.buildInvocation(options)).toEqual({
      command: 'codex',
      args: ['exec', '--json', '--skip-git-repo-check', '--model', 'gpt-5.5', '--dangerously-bypass-approvals-and-sandbox'],
      env: { CODEX_HOME: '/nonexistent' },
      stdin: 'p',
    });
    expect(adapter.buildInvocation({ ...options, model: null, permissionMode: 'default' }).args).toEqual([
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--sandbox',
      'workspace-write',
    ]);
    expect(adapter.buildInvocation({ ...options, resumeSessionId: 'th-1', extraArgs: ['-c', 'x=1'] }).args).toEqual([
      'exec',
      'resume',
      '--json',
      '--skip-git-repo-check',
      '--model',
      'gpt-5.5',
      '--dangerously-bypass-approvals-and-sandbox',
      '-c',
      'x=1',
      'th-1',
      '-',
    ]);
  });

  it('knows the model from the invocation or from $CODEX_HOME/config.toml', async () => {
    const home = await mkdtemp(join(tmpdir(), 'rm-codex-home-'));
    try {
      await writeFile(join(home, 'config.toml'), 'model = "gpt-5.2"\nmodel_provider = "x"\n[profiles.a]\nmodel = "other"\n');
      expect(codexConfiguredModel({ CODEX_HOME: home })).toBe('gpt-5.2');
      expect(codexConfiguredModel({ CODEX_HOME: join(home, 'missing') })).toBeNull();
      const a = createCodexAdapter(deps);
      const usage = parseAll(a, await fixture('success'), invocationOptions({ prompt: 'p', cwd: '/w', env: { CODEX_HOME: home } })).find((e) => e.type === 'usage');
      expect(usage).toMatchObject({ model: 'gpt-5.2', cumulative: false });
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('reports the error once although codex prints it twice', async () => {
    const events = parseAll(adapter, await fixture('auth-401'));
    expect(events.filter((e) => e.type === 'error')).toHaveLength(1);
    expect(events.at(-1)).toEqual({ type: 'result', isError: true, text: null });
  });

  it('turns tool items into tool calls and results', async () => {
    const events = parseAll(adapter, await fixture('success'));
    expect(events.filter((e) => e.type === 'tool_call').map((e) => e.type === 'tool_call' && e.name)).toEqual(['shell', 'apply_patch']);
    expect(summarize(events).costUsd).toBeNull();
  });

  it('classifies only limit and outage item errors', () => {
    const parser = createCodexParser(null, deps);
    expect(parser.line('{"type":"item.completed","item":{"id":"i","type":"error","message":"minor warning"}}')).toEqual([]);
    expect(parser.line('{"type":"item.completed","item":{"id":"i","type":"error","message":"stream disconnected before completion"}}')).toEqual([
      { type: 'error', kind: 'overloaded', message: 'stream disconnected before completion', status: null },
    ]);
  });
});
