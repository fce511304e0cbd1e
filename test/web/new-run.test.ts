// The new-run form validates like `ringmaster run` (the CLI's own parsers and messages) and builds the request.
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/core/duration.js';
import { loopSchema, managerDefaultsSchema } from '../../src/config/settings.js';
import { EMPTY_FORM, EMPTY_GIVES, fieldOfServerError, validateNewRun } from '../../web/src/lib/new-run.js';

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

  it("reports each bad field with the CLI parser's problem, named as the form names the field", () => {
    const result = validateNewRun({ ...EMPTY_FORM, workspace: '/w', prompt: 'p', maxIterations: '0', maxCost: 'lots', maxRuntime: '4 hours', failureThreshold: '0', cooldown: 'x', agentCommand: '"unclosed' });
    expect(result).toEqual({
      ok: false,
      errors: {
        maxIterations: 'Max iterations: expected a whole number of at least 1, got "0"',
        maxCost: 'Max cost: expected an amount in USD like 20 or 7.50, got "lots"',
        maxRuntime: `Max runtime: expected a duration like 90s, 5m or 4h (or 'none'), got "4 hours"`,
        failureThreshold: 'Failure threshold: must be at least 1, got 0',
        cooldown: 'Cooldown: expected a duration like 90s, 5m or 4h, got "x"',
        agentCommand: expect.stringMatching(/^Agent command: .+/) as string,
      },
    });
  });

  it('needs a workspace and a prompt; a prompt file or procedure replaces the prompt', () => {
    expect(validateNewRun(EMPTY_FORM)).toEqual({ ok: false, errors: { workspace: 'Workspace: a directory is required', prompt: 'Prompt: write what the agent should do' } });
    expect(validateNewRun({ ...EMPTY_FORM, workspace: '/w', promptKind: 'file' })).toEqual({ ok: true, body: { workspace: '/w' } });
    expect(validateNewRun({ ...EMPTY_FORM, workspace: '/w', promptKind: 'file', promptFile: 'TASK.md', prompt: 'ignored' })).toEqual({ ok: true, body: { workspace: '/w', prompt_file: 'TASK.md' } });
    expect(validateNewRun({ ...EMPTY_FORM, workspace: '/w', promptKind: 'procedure' })).toEqual({ ok: false, errors: { procedure: 'Procedure: choose a procedure' } });
    expect(validateNewRun({ ...EMPTY_FORM, workspace: '/w', promptKind: 'procedure', procedure: 'build' })).toEqual({ ok: true, body: { workspace: '/w', procedure: 'build' } });
  });

  it('a workflow brings its own prompts, with an optional message', () => {
    expect(validateNewRun({ ...EMPTY_FORM, workspace: '/w', promptKind: 'workflow' })).toEqual({ ok: false, errors: { workflow: 'Workflow: name a workflow, or a workflow file relative to the workspace' } });
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
      errors: { verifyTimeout: 'Verify timeout: expected a duration like 90s, 5m or 4h, got "soon"', verifyEach: 'Check after every iteration: give the verify command too' },
    });
  });

  it('maps a server error to the field it names, in the form\'s words', () => {
    expect(fieldOfServerError('workspace: not a directory: /w/nope')).toEqual({ field: 'workspace', message: 'Workspace: not a directory: /w/nope' });
    expect(fieldOfServerError('flag max_runtime: loop.max_runtime: expected a duration')).toEqual({ field: 'maxRuntime', message: 'Max runtime: expected a duration' });
    expect(fieldOfServerError('workflow: unknown workflow')).toEqual({ field: 'workflow', message: 'Workflow: unknown workflow' });
    expect(fieldOfServerError('unknown agent nobody')).toBeNull();
  });

  it('the placeholders say what an empty field gives: the defaults of server-created runs and of the loop', () => {
    const manager = managerDefaultsSchema().parse({});
    const loop = loopSchema().parse({});
    const ms = (text: string) => (text === 'none' ? null : parseDuration(text));
    expect(Number(EMPTY_GIVES.maxIterations)).toBe(manager.max_iterations);
    expect(ms(EMPTY_GIVES.maxRuntime)).toBe(manager.max_runtime);
    expect(Number(EMPTY_GIVES.maxCost)).toBe(manager.max_cost);
    expect(Number(EMPTY_GIVES.failureThreshold)).toBe(manager.failure_threshold);
    expect(ms(EMPTY_GIVES.cooldown)).toBe(manager.cooldown);
    expect(ms(EMPTY_GIVES.idleTimeout)).toBe(loop.idle_timeout);
    expect(ms(EMPTY_GIVES.iterationTimeout)).toBe(loop.iteration_timeout);
    expect(Number(EMPTY_GIVES.checkpointInterval)).toBe(manager.checkpoint_interval);
    expect(ms(EMPTY_GIVES.verifyTimeout)).toBe(loop.verify_timeout);
  });

  it('unlimited replaces the iteration count', () => {
    expect(validateNewRun({ ...EMPTY_FORM, workspace: '/w', prompt: 'p', unlimited: true, maxIterations: 'abc' })).toEqual({ ok: true, body: { workspace: '/w', prompt: 'p', unlimited: true } });
  });
});
