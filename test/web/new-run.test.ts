// The new-run form validates like `ringmaster run` (the CLI's own parsers and messages) and builds the request.
import { describe, expect, it } from 'vitest';
import { EMPTY_FORM, fieldOfServerError, validateNewRun } from '../../web/src/lib/new-run.js';

describe('validateNewRun', () => {
  it('builds the body from the given fields only, values as typed', () => {
    const result = validateNewRun({
      ...EMPTY_FORM,
      workspace: ' /work/app ',
      prompt: 'Fix the tests',
      agent: 'codex',
      maxIterations: '20',
      maxCost: '$15',
      maxRuntime: '4h',
      failureThreshold: '2',
      checkpointInterval: '0',
      worktree: true,
      sandbox: true,
    });
    expect(result).toEqual({
      ok: true,
      body: { workspace: '/work/app', prompt: 'Fix the tests', agent: 'codex', max_iterations: 20, max_cost: '$15', max_runtime: '4h', failure_threshold: 2, checkpoint_interval: 0, worktree: true, sandbox: true },
    });
  });

  it("reports each bad field with the CLI's message", () => {
    const result = validateNewRun({ ...EMPTY_FORM, workspace: '/w', prompt: 'p', maxIterations: '0', maxCost: 'lots', maxRuntime: '4 hours', failureThreshold: '0', cooldown: 'x', agentCommand: '"unclosed' });
    expect(result).toEqual({
      ok: false,
      errors: {
        maxIterations: '--max-iterations: expected a whole number of at least 1, got "0"',
        maxCost: 'flag --max-cost: loop.max_cost: expected an amount in USD like 20 or 7.50, got "lots"',
        maxRuntime: `flag --max-runtime: loop.max_runtime: expected a duration like 90s, 5m or 4h (or 'none'), got "4 hours"`,
        failureThreshold: 'flag --failure-threshold: loop.failure_threshold: must be at least 1, got 0',
        cooldown: 'flag --cooldown: loop.cooldown: expected a duration like 90s, 5m or 4h, got "x"',
        agentCommand: expect.stringMatching(/^flag --agent-command: agent\.command: .+/) as string,
      },
    });
  });

  it('needs a workspace and a prompt; a prompt file or procedure replaces the prompt', () => {
    expect(validateNewRun(EMPTY_FORM)).toEqual({ ok: false, errors: { workspace: 'a workspace directory is required', prompt: 'the prompt is empty' } });
    expect(validateNewRun({ ...EMPTY_FORM, workspace: '/w', promptKind: 'file' })).toEqual({ ok: true, body: { workspace: '/w' } });
    expect(validateNewRun({ ...EMPTY_FORM, workspace: '/w', promptKind: 'file', promptFile: 'TASK.md', prompt: 'ignored' })).toEqual({ ok: true, body: { workspace: '/w', prompt_file: 'TASK.md' } });
    expect(validateNewRun({ ...EMPTY_FORM, workspace: '/w', promptKind: 'procedure' })).toEqual({ ok: false, errors: { procedure: '--procedure: choose a procedure' } });
    expect(validateNewRun({ ...EMPTY_FORM, workspace: '/w', promptKind: 'procedure', procedure: 'build' })).toEqual({ ok: true, body: { workspace: '/w', procedure: 'build' } });
  });

  it('a workflow brings its own prompts, with an optional message', () => {
    expect(validateNewRun({ ...EMPTY_FORM, workspace: '/w', promptKind: 'workflow' })).toEqual({ ok: false, errors: { workflow: 'workflow: name a workflow, or a workflow file relative to the workspace' } });
    expect(validateNewRun({ ...EMPTY_FORM, workspace: '/w', promptKind: 'workflow', workflow: ' ralph ', prompt: 'ignored' })).toEqual({ ok: true, body: { workspace: '/w', workflow: 'ralph' } });
    expect(validateNewRun({ ...EMPTY_FORM, workspace: '/w', promptKind: 'workflow', workflow: 'ralph', message: 'Build the todo app' })).toEqual({ ok: true, body: { workspace: '/w', workflow: 'ralph', message: 'Build the todo app' } });
  });

  it('sends the verify gate: command and timeout as typed, each only with a command', () => {
    expect(validateNewRun({ ...EMPTY_FORM, workspace: '/w', prompt: 'p', verify: " npm test -- --grep 'a b' ", verifyTimeout: '90s', verifyEach: true })).toEqual({
      ok: true,
      body: { workspace: '/w', prompt: 'p', verify: "npm test -- --grep 'a b'", verify_timeout: '90s', verify_each: true },
    });
    expect(validateNewRun({ ...EMPTY_FORM, workspace: '/w', prompt: 'p', verifyTimeout: 'soon', verifyEach: true })).toEqual({
      ok: false,
      errors: { verifyTimeout: 'flag --verify-timeout: loop.verify_timeout: expected a duration like 90s, 5m or 4h, got "soon"', verifyEach: '--verify-each: give the verify command too' },
    });
  });

  it('maps a server error to the field it names', () => {
    expect(fieldOfServerError('workspace: not a directory: /w/nope')).toBe('workspace');
    expect(fieldOfServerError('flag max_runtime: loop.max_runtime: expected a duration')).toBe('maxRuntime');
    expect(fieldOfServerError('workflow: unknown workflow')).toBe('workflow');
    expect(fieldOfServerError('unknown agent nobody')).toBeNull();
  });

  it('unlimited replaces the iteration count', () => {
    expect(validateNewRun({ ...EMPTY_FORM, workspace: '/w', prompt: 'p', unlimited: true, maxIterations: 'abc' })).toEqual({ ok: true, body: { workspace: '/w', prompt: 'p', unlimited: true } });
  });
});
