// The one contract every agent adapter honours, run against each adapter with its recorded fixtures:
// prompt on stdin (never argv), malformed lines are events not throws, text only from the agent's own
// messages, usage and session id parsed, errors classified.
import { describe, expect, it } from 'vitest';
import type { AgentAdapter, AgentEvent } from '../../src/agents/types.js';
import type { ErrorKind, Usage } from '../../src/core/types.js';
import { invocationOptions, parseAll } from './run-adapter.js';

/** The recorded streams an adapter is checked against (stdout text of whole runs). */
export interface ContractFixtures {
  /** A successful run: assistant text, usage, session id. */
  success: { stdout: string; sessionId: string | null; textIncludes: string; usage: Usage | null };
  /** A run whose tool output (or echoed input) holds `signal` while the agent's own text does not. */
  toolOutputSignal?: { stdout: string; signal: string };
  /** Failed runs and the kind each one must classify as (from its events, else from classifyExit). */
  errors: { name: string; stdout: string; kind: ErrorKind; exitCode?: number; stderr?: string; resetAtMs?: number | null }[];
}

/** What a whole stream adds up to, the way the runner folds events. */
export interface StreamSummary {
  text: string;
  usage: Usage | null;
  costUsd: number | null;
  sessionId: string | null;
  errorKind: ErrorKind | null;
  resetAtMs: number | null;
  malformed: number;
}

/** Folds events like the runner: cumulative usage/cost replace, increments add; first classified error wins. */
export function summarize(events: readonly AgentEvent[]): StreamSummary {
  const s: StreamSummary = { text: '', usage: null, costUsd: null, sessionId: null, errorKind: null, resetAtMs: null, malformed: 0 };
  for (const e of events) {
    if (e.type === 'text') s.text += e.text;
    else if (e.type === 'usage') {
      const base = e.cumulative || s.usage === null ? { tokensIn: 0, tokensOut: 0, cacheRead: 0, cacheWrite: 0 } : s.usage;
      s.usage = {
        tokensIn: base.tokensIn + e.usage.tokensIn,
        tokensOut: base.tokensOut + e.usage.tokensOut,
        cacheRead: base.cacheRead + e.usage.cacheRead,
        cacheWrite: base.cacheWrite + e.usage.cacheWrite,
      };
    } else if (e.type === 'cost') s.costUsd = e.cumulative ? e.usd : (s.costUsd ?? 0) + e.usd;
    else if (e.type === 'session') s.sessionId = e.id;
    else if (e.type === 'error' && s.errorKind === null) s.errorKind = e.kind;
    else if (e.type === 'limit' && s.errorKind === null) {
      s.errorKind = e.kind;
      s.resetAtMs = e.resetAtMs;
    } else if (e.type === 'malformed') s.malformed += 1;
  }
  return s;
}

/** Exceptions an adapter may declare (each one must be documented in the adapter). */
export interface ContractOptions {
  /** The CLI only takes its prompt as an argument: it must then be one argv element after `--`, stdin null. */
  promptInArgv?: boolean;
}

/** Registers the contract tests for one adapter. */
export function adapterContract(adapter: AgentAdapter, fixtures: ContractFixtures, options: ContractOptions = {}): void {
  describe(`agent adapter contract: ${adapter.name}`, () => {
    const prompt = `Fix the bug in "src/a b.ts"; then say <promise>COMPLETE</promise> $(rm -rf /) ${'x'.repeat(200_000)}`;
    const base = invocationOptions({ prompt, cwd: '/tmp', env: { PATH: '/usr/bin', SECRET_TOKEN: 'kept' } });

    it('puts the prompt on stdin, never in argv, and keeps the environment', () => {
      const inv = adapter.buildInvocation(base);
      if (options.promptInArgv) {
        expect(inv.stdin).toBeNull();
        expect(inv.args.slice(-2)).toEqual(['--', prompt]);
        for (const arg of inv.args.slice(0, -1)) expect(arg.includes('<promise>')).toBe(false);
      } else {
        expect(inv.stdin).toBe(prompt);
        for (const arg of inv.args) expect(arg.includes('<promise>')).toBe(false);
        expect(inv.args.join(' ').length).toBeLessThan(10_000);
      }
      expect(inv.env.SECRET_TOKEN).toBe('kept');
      expect(inv.command.length).toBeGreaterThan(0);
    });

    it('passes model and extra args through argv', () => {
      const inv = adapter.buildInvocation({ ...base, model: 'model-xyz', extraArgs: ['--extra-flag', 'v'] });
      expect(inv.args).toContain('model-xyz');
      const args = options.promptInArgv ? inv.args.slice(0, -2) : inv.args;
      expect(args.slice(-2)).toEqual(['--extra-flag', 'v']);
    });

    it('maps permission mode to different argv', () => {
      const bypass = adapter.buildInvocation(base).args;
      const ask = adapter.buildInvocation({ ...base, permissionMode: 'default' }).args;
      expect(bypass).not.toEqual(ask);
    });

    it('resumes a session only when asked and supported', () => {
      const fresh = adapter.buildInvocation(base).args;
      expect(fresh.join(' ')).not.toContain('sess-123');
      if (adapter.supportsResume) {
        expect(adapter.buildInvocation({ ...base, resumeSessionId: 'sess-123' }).args).toContain('sess-123');
      }
    });

    if (adapter.format === 'jsonl') {
      it('turns malformed lines into malformed events, never a throw', () => {
        const parser = adapter.createParser(base);
        const bad = ['not json at all', '{"type":', '[1,2,3]', '42', '{"no_type":true}'];
        const events = bad.flatMap((line) => parser.line(line));
        expect(events.filter((e) => e.type === 'malformed').length).toBeGreaterThanOrEqual(3);
        for (const e of events) expect(['malformed', 'text']).toContain(e.type);
        expect(events.filter((e) => e.type === 'text')).toEqual([]);
        expect(parser.line('')).toEqual([]);
        expect(() => parser.line('{"type":"some_future_event","x":1}')).not.toThrow();
        expect(() => parser.end()).not.toThrow();
      });

      it('parses a successful run: text, usage, session id, no malformed line', () => {
        const s = summarize(parseAll(adapter, fixtures.success.stdout));
        expect(s.text).toContain(fixtures.success.textIncludes);
        expect(s.usage).toEqual(fixtures.success.usage);
        expect(s.sessionId).toBe(fixtures.success.sessionId);
        expect(s.errorKind).toBeNull();
        expect(s.malformed).toBe(0);
      });

      if (fixtures.toolOutputSignal) {
        const { stdout, signal } = fixtures.toolOutputSignal;
        it('never takes text from tool output or echoed input', () => {
          expect(stdout).toContain(signal);
          const events = parseAll(adapter, stdout);
          const texts = events.filter((e) => e.type === 'text');
          for (const t of texts) expect(t.text).not.toContain(signal);
        });
      }
    }

    for (const fixture of fixtures.errors) {
      it(`classifies the error fixture "${fixture.name}" as ${fixture.kind}`, () => {
        const s = adapter.format === 'jsonl' ? summarize(parseAll(adapter, fixture.stdout)) : null;
        const kind = s?.errorKind ?? adapter.classifyExit(fixture.exitCode ?? 1, `${fixture.stderr ?? ''}\n${fixture.stdout}`)?.kind ?? null;
        expect(kind).toBe(fixture.kind);
        if (fixture.resetAtMs !== undefined) expect(s?.resetAtMs ?? null).toBe(fixture.resetAtMs);
      });
    }

    it('classifies a missing binary from the exit', () => {
      expect(adapter.classifyExit(127, `sh: 1: ${adapter.name}: command not found`)?.kind).toBe('missing_binary');
    });
  });
}
