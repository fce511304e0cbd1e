// Resolving a workflow against the run's settings (flags > step > workflow > config), and which iterations
// start a new agent session.
import { describe, expect, it } from 'vitest';
import type { Limits } from '../../src/core/types.js';
import { resolveWorkflow, type BaseSettings } from '../../src/workflow/resolve.js';
import { describeSessions, sessionWarnings, startsFreshSession } from '../../src/workflow/session.js';
import type { LoopSpec, Workflow, WorkflowStep } from '../../src/workflow/types.js';

const LIMITS: Limits = { maxIterations: 5, maxRuntimeMs: null, maxCostUsd: 10, failureThreshold: 3, cooldownMs: 0, backoffBaseMs: 1000, backoffMaxMs: 60_000 };

function base(over: Partial<BaseSettings> = {}): BaseSettings {
  return {
    agentName: { value: 'claude', fromFlag: false },
    agentCommand: null,
    model: { value: 'sonnet', fromFlag: false },
    maxIterations: { value: 5, fromFlag: false },
    unlimited: false,
    limits: LIMITS,
    maxCostFromFlag: false,
    maxRuntimeFromFlag: false,
    idleTimeoutMs: { value: 1_800_000, fromFlag: false },
    ...over,
  };
}

function loop(over: Partial<LoopSpec> = {}): LoopSpec {
  return { until: 'DONE', maxIterations: 4, freshContext: false, untilCommand: null, maxCostUsd: null, maxRuntimeMs: null, idleTimeoutMs: null, ...over };
}

function step(index: number, over: Partial<WorkflowStep> = {}): WorkflowStep {
  return { index, name: `s${index}`, prompt: { kind: 'text', text: 'p' }, agent: null, model: null, clearContext: false, loop: null, ...over };
}

function workflow(over: Partial<Workflow>): Workflow {
  return { name: 'w', description: '', kind: 'steps', agent: null, model: null, steps: [], file: '/w.yaml', source: 'project', ...over };
}

const canResume = (agent: string) => agent !== 'scripted';

describe('resolveWorkflow', () => {
  it('a loop workflow: its loop limits become the run limits unless a flag set them', () => {
    const w = workflow({ kind: 'loop', steps: [step(1, { loop: loop({ maxIterations: 7, maxCostUsd: 2, maxRuntimeMs: 60_000, idleTimeoutMs: 5000 }) })] });
    const r = resolveWorkflow(w, base(), 'msg');
    expect([r.steps[0]?.maxIterations, r.limits.maxIterations, r.limits.maxCostUsd, r.limits.maxRuntimeMs, r.idleTimeoutMs, r.steps[0]?.idleTimeoutMs, r.userMessage]).toEqual([7, null, 2, 60_000, 5000, 5000, 'msg']);
    const flagged = resolveWorkflow(
      w,
      base({ maxIterations: { value: 2, fromFlag: true }, maxCostFromFlag: true, limits: { ...LIMITS, maxCostUsd: 1, maxRuntimeMs: 9000 }, maxRuntimeFromFlag: true, idleTimeoutMs: { value: 100, fromFlag: true } }),
      '',
    );
    expect([flagged.steps[0]?.maxIterations, flagged.steps[0]?.loop?.maxIterations, flagged.limits.maxCostUsd, flagged.limits.maxRuntimeMs, flagged.idleTimeoutMs, flagged.steps[0]?.idleTimeoutMs]).toEqual([2, 2, 1, 9000, 100, null]);
  });

  it('a steps workflow: each step has its iteration budget, no run-wide cap; config limits stay the run limits', () => {
    const w = workflow({ steps: [step(1), step(2, { loop: loop({ maxIterations: 10, maxCostUsd: 3 }) }), step(3)] });
    const r = resolveWorkflow(w, base(), '');
    expect(r.steps.map((s) => s.maxIterations)).toEqual([1, 10, 1]);
    expect([r.limits.maxIterations, r.limits.maxCostUsd]).toEqual([null, 10]);
  });

  it('agent and model: flag > step > workflow > config; a model follows its agent', () => {
    const w = workflow({ agent: 'codex', model: 'gpt-5', steps: [step(1), step(2, { agent: 'claude' }), step(3, { agent: 'gemini', model: 'pro' }), step(4, { agent: 'codex' })] });
    expect(resolveWorkflow(w, base(), '').steps.map((s) => [s.agent.name, s.agent.model])).toEqual([
      ['codex', 'gpt-5'],
      ['claude', 'sonnet'],
      ['gemini', 'pro'],
      ['codex', 'gpt-5'],
    ]);
    const flags = base({ agentName: { value: 'scripted', fromFlag: true }, model: { value: null, fromFlag: true } });
    expect(resolveWorkflow(w, flags, '').steps.map((s) => [s.agent.name, s.agent.model])).toEqual([
      ['scripted', null],
      ['scripted', null],
      ['scripted', null],
      ['scripted', null],
    ]);
  });

  it('--unlimited is refused: a workflow loop always has max_iterations', () => {
    expect(() => resolveWorkflow(workflow({ steps: [step(1)] }), base({ unlimited: true }), '')).toThrow('--unlimited: a workflow loop always has max_iterations');
  });
});

describe('sessions', () => {
  const w = workflow({
    steps: [step(1), step(2, { loop: loop() }), step(3, { loop: loop({ freshContext: true }) }), step(4, { clearContext: true }), step(5, { agent: 'codex' })],
  });
  const steps = resolveWorkflow(w, base(), '').steps;

  it('steps carry the session; a loop resumes it between iterations unless fresh_context; clear_context and a new agent start over', () => {
    const fresh = (i: number, it: number) => startsFreshSession(steps, i, it, canResume);
    expect([fresh(0, 1), fresh(1, 1), fresh(1, 2), fresh(1, 3), fresh(2, 1), fresh(2, 2), fresh(3, 1), fresh(4, 1)]).toEqual([true, false, false, false, false, true, true, true]);
    expect(steps.map((_, i) => describeSessions(steps, i, canResume))).toEqual([
      'new session',
      'continues the session of step 1; iterations 2.. resume the session',
      'continues the session of step 2; a new session every iteration (fresh_context)',
      'new session',
      'new session',
    ]);
  });

  it('an agent that cannot resume: every iteration is fresh, and the user is told where continuity was asked for', () => {
    const scripted = resolveWorkflow(w, base({ agentName: { value: 'scripted', fromFlag: true } }), '').steps;
    expect(scripted.every((_, i) => startsFreshSession(scripted, i, 2, canResume))).toBe(true);
    expect(sessionWarnings(scripted, canResume)).toEqual([
      "step 2 (s2): agent 'scripted' cannot resume sessions: each iteration will be a new session",
      "step 3 (s3): agent 'scripted' cannot resume sessions: each iteration will be a new session",
      "step 5 (s5): agent 'scripted' cannot resume sessions: each iteration will be a new session",
    ]);
    expect(sessionWarnings(steps, canResume)).toEqual([]);
  });
});
