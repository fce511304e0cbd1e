import { describe, expect, it } from 'vitest';
import { classifyOutputTail, classifyStatus, classifyText } from '../../src/agents/classify.js';

const clock = { nowMs: Date.UTC(2026, 10, 22, 13, 0), timeZone: 'UTC' };

describe('classifyText', () => {
  it('usage limits win and carry the reset time', () => {
    expect(classifyText("You've hit your usage limit. Try again at 9:45 AM.", 429, clock)).toEqual({
      kind: 'usage_limit',
      resetAtMs: Date.UTC(2026, 10, 23, 9, 45),
    });
    expect(classifyText("You've hit your session limit · resets 5pm", null, clock)).toEqual({
      kind: 'usage_limit',
      resetAtMs: Date.UTC(2026, 10, 22, 17, 0),
    });
    expect(classifyText('You have exhausted your daily quota on this model.', null, clock)?.kind).toBe('usage_limit');
  });
  it('auth, rate limit and overload by text or status', () => {
    expect(classifyText('unexpected status 401 Unauthorized: Missing bearer', null, clock)).toEqual({ kind: 'auth', resetAtMs: null });
    expect(classifyText('Invalid API key · Please run /login', null, clock)?.kind).toBe('auth');
    expect(classifyText('whatever', 401, clock)?.kind).toBe('auth');
    expect(classifyText('Rate limit exceeded', null, clock)).toEqual({ kind: 'rate_limit', resetAtMs: null });
    expect(classifyText('API Error: 529 Overloaded', null, clock)?.kind).toBe('overloaded');
    expect(classifyText('boom', 503, clock)?.kind).toBe('overloaded');
    expect(classifyText('the model refused', 400, clock)).toBeNull();
  });
});

describe('classifyStatus / classifyOutputTail', () => {
  it('maps statuses', () => {
    expect([401, 403, 429, 500, 529, 400, null].map((s) => classifyStatus(s))).toEqual([
      'auth',
      'auth',
      'rate_limit',
      'overloaded',
      'overloaded',
      null,
      null,
    ]);
  });
  it('finds a missing binary and ignores clean exits', () => {
    expect(classifyOutputTail(127, '', clock)?.kind).toBe('missing_binary');
    expect(classifyOutputTail(1, 'sh: 1: claude: command not found', clock)?.kind).toBe('missing_binary');
    expect(classifyOutputTail(null, 'spawn codex ENOENT', clock)?.kind).toBe('missing_binary');
    expect(classifyOutputTail(0, 'Invalid API key', clock)).toBeNull();
    expect(classifyOutputTail(1, 'cat: x: No such file or directory', clock)).toBeNull();
  });
});

it("OpenAI's 'Rate limit reached for requests' is a rate limit, not a usage limit", () => {
  expect(classifyText('Rate limit reached for requests per min (RPM): Limit 500, Used 500', 429, clock)?.kind).toBe('rate_limit');
});
