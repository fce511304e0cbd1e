// The one error-kind policy: every kind has exactly one meaning for the run (a new kind must be placed here).
// 'other': decide() judges the iteration by its outcome (interrupted, failure...), the kind adds no rule.
import { describe, expect, it } from 'vitest';
import { isRunFatal, isRunLimit, isWait } from '../../src/core/error-policy.js';
import { ERROR_KINDS, type ErrorKind } from '../../src/core/types.js';

function meaning(kind: ErrorKind): string {
  const meanings = [isRunFatal(kind) && 'fatal', isRunLimit(kind) && 'limit', isWait(kind) && 'wait'].filter(Boolean);
  return meanings.length === 0 ? 'other' : meanings.join('+');
}

describe('error-kind policy', () => {
  it('gives every error kind one meaning', () => {
    expect(Object.fromEntries(ERROR_KINDS.map((kind) => [kind, meaning(kind)]))).toEqual({
      none: 'other',
      exit_nonzero: 'other',
      failure_signal: 'other',
      idle_timeout: 'other',
      iteration_timeout: 'other',
      max_runtime: 'limit',
      max_cost: 'limit',
      budget: 'wait',
      spawn_failed: 'fatal',
      interrupted: 'other',
      missing_binary: 'fatal',
      auth: 'fatal',
      usage_limit: 'wait',
      rate_limit: 'wait',
      overloaded: 'wait',
      agent_error: 'other',
      verify_failed: 'other',
      write_failed: 'fatal',
    });
  });
});
