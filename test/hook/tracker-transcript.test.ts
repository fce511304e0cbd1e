// Tracker frontmatter round trip and validation; the transcript's current-turn assistant text.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { currentTurnAssistantTexts, readCurrentTurnText } from '../../src/hook/transcript.js';
import { readTracker, TrackerError, writeTracker, type Tracker } from '../../src/hook/tracker.js';
import { formatTracker, parseTracker } from '../../src/hook/tracker-yaml.js';

const TRACKER: Tracker = {
  frontmatter: {
    iteration: 2,
    max_iterations: 15,
    completion_marker: 'E2E_COMPLETE',
    active: true,
    started_at: '2026-02-25T10:00:00Z',
    session_id: null,
    task: 'Add e2e tests',
    continue_message: null,
    ended_at: null,
    stop_reason: null,
    run_id: null,
    verify: null,
    verify_timeout_ms: 600_000,
  },
  body: '# E2E Test Progress\n\n## Criteria\n- [ ] All tests passing\n',
};

describe('tracker', () => {
  it('writes YAML frontmatter and keeps the body byte for byte', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rm-tracker-'));
    try {
      await writeTracker(dir, TRACKER);
      const text = await readFile(join(dir, '.ringmaster', 'loop-tracker.md'), 'utf8');
      expect(text).toBe(
        '---\niteration: 2\nmax_iterations: 15\ncompletion_marker: E2E_COMPLETE\nactive: true\nstarted_at: 2026-02-25T10:00:00Z\n' +
          'session_id: null\ntask: Add e2e tests\ncontinue_message: null\nended_at: null\nstop_reason: null\nrun_id: null\n' +
          'verify: null\nverify_timeout_ms: 600000\n---\n' +
          '# E2E Test Progress\n\n## Criteria\n- [ ] All tests passing\n',
      );
      expect(await readTracker(dir)).toEqual(TRACKER);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("reads seed 002's minimal frontmatter (quoted strings, no session) and keeps unknown keys", () => {
    const parsed = parseTracker(
      '---\niteration: 0\nmax_iterations: 15\ncompletion_marker: "E2E_COMPLETE"\nactive: true\nstarted_at: "2026-02-25T10:00:00Z"\nowner: me\n---\n# Body\n',
      'x.md',
    );
    expect(parsed.frontmatter).toEqual({ ...TRACKER.frontmatter, iteration: 0, task: '', owner: 'me' });
    expect(formatTracker(parsed)).toContain('\nowner: me\n');
  });

  it('rejects trackers it cannot trust, naming the file and the key', () => {
    expect(() => parseTracker('# no frontmatter\n', 't.md')).toThrow(new TrackerError('t.md', 'no YAML frontmatter (the file must start with a --- block)'));
    expect(() => parseTracker('---\niteration: -1\nmax_iterations: 3\ncompletion_marker: X\nactive: true\nstarted_at: now\n---\n', 't.md')).toThrow(
      /^t\.md: frontmatter iteration: /,
    );
    expect(() => parseTracker('---\niteration: 0\nmax_iterations: 0\ncompletion_marker: X\nactive: true\nstarted_at: now\n---\n', 't.md')).toThrow(
      /^t\.md: frontmatter max_iterations: /,
    );
    expect(() => parseTracker('---\niteration: 0\nmax_iterations: 3\ncompletion_marker: X\nactive: "yes"\nstarted_at: now\n---\n', 't.md')).toThrow(
      /^t\.md: frontmatter active: /,
    );
  });
});

const line = (entry: unknown): string => JSON.stringify(entry);

describe('transcript', () => {
  const jsonl = [
    line({ type: 'user', message: { role: 'user', content: 'do it' } }),
    line({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'old <promise>DONE</promise>' }] } }),
    line({ type: 'user', isMeta: true, message: { role: 'user', content: 'Stop hook feedback:\ncontinue' } }),
    line({ type: 'assistant', message: { content: [{ type: 'text', text: 'Now <promise>DONE</promise>' }] } }),
    line({ type: 'assistant', message: { content: [{ type: 'tool_use', id: 't', name: 'Write', input: {} }] } }),
    line({ type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }] } }),
    'not json',
    line({ type: 'assistant', message: { content: [{ type: 'text', text: '' }] } }),
    line({ type: 'user', isMeta: true, message: { content: '[Your previous response had no visible output. Please continue.]' } }),
    line({ type: 'assistant', message: { content: [{ type: 'text', text: '' }] } }),
    line({ type: 'system', subtype: 'stop_hook_summary' }),
  ].join('\n');

  it('collects the assistant texts since the last prompt or Stop-hook feedback', () => {
    expect(currentTurnAssistantTexts(jsonl)).toEqual(['Now <promise>DONE</promise>', '', '']);
  });

  it('stops at a real user prompt', () => {
    const next = `${jsonl}\n${line({ type: 'user', message: { content: 'new prompt' } })}\n${line({ type: 'assistant', message: { content: [{ type: 'text', text: 'fresh' }] } })}`;
    expect(currentTurnAssistantTexts(next)).toEqual(['fresh']);
  });

  it('reads the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rm-transcript-'));
    try {
      await writeFile(join(dir, 't.jsonl'), `${jsonl}\n`);
      expect(await readCurrentTurnText(join(dir, 't.jsonl'))).toBe('Now <promise>DONE</promise>\n\n');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
