// A run's spec is parsed when it is read back from the store: older rows get the defaults of fields that came
// later, fields the schema does not name are kept, and a damaged row is a clear error (exit 74).
import { describe, expect, it } from 'vitest';
import { parseStoredSpec, StoredSpecError } from '../../src/spec/stored-spec.js';

const older = {
  workspace: '/w',
  prompt: { kind: 'file', path: 'PROMPT.md' },
  label: 'PROMPT.md',
  limits: { maxIterations: 3, maxRuntimeMs: null, maxCostUsd: null, failureThreshold: 3, cooldownMs: 0, backoffBaseMs: 1000, backoffMaxMs: 60000 },
  idleTimeoutMs: null,
  iterationTimeoutMs: null,
  killGraceMs: 5000,
  checkpointInterval: 0,
  successSignals: ['<promise>COMPLETE</promise>'],
  failureSignal: '<promise>FAILURE</promise>',
  freshContext: true,
  agent: { name: 'command', command: ['true'], model: null, args: [], permissionMode: 'bypass' },
  repository: { url: 'git@example:x', branch: 'main' },
};

describe('parseStoredSpec', () => {
  it('gives an older row the defaults of later fields and keeps fields it does not name', () => {
    const spec = parseStoredSpec('r1', older);
    expect(spec.agent).toEqual({ name: 'command', command: ['true'], model: null, args: [], permissionMode: 'bypass', fallback: [], autoInstall: false });
    expect(spec.context).toBeNull();
    expect(spec.prices).toEqual({});
    expect(spec.maxLogBytes).toBeUndefined();
    expect((spec as unknown as { repository: unknown }).repository).toEqual({ url: 'git@example:x', branch: 'main' });
  });

  it('returns a copy: changing it leaves the stored object alone', () => {
    const spec = parseStoredSpec('r1', older);
    spec.limits.maxIterations = 10;
    expect(older.limits.maxIterations).toBe(3);
  });

  it('refuses a damaged row with the field at fault and exit 74', () => {
    const damaged = { ...older, limits: { ...older.limits, failureThreshold: 'three' } };
    expect(() => parseStoredSpec('r1', damaged)).toThrow(StoredSpecError);
    expect(() => parseStoredSpec('r1', damaged)).toThrow('the stored settings of run r1 cannot be read (limits.failureThreshold: Invalid input: expected number, received string): the row is damaged; start a new run');
    expect(() => parseStoredSpec('r1', null)).toThrow(expect.objectContaining({ exitCode: 74 }));
  });
});
