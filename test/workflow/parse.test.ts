// Workflow files: the normalised workflow of a valid file, and every problem of an invalid one, each with
// its line, its key and a reason (seed 004's loader rules, plus unknown keys, agents and command files).
import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/workflow/lines.js';
import { parseWorkflow, type ParseContext } from '../../src/workflow/parse.js';

const CTX: ParseContext = {
  agentNames: ['claude', 'codex', 'scripted'],
  resolveCommand: (name) => (name === 'plan' ? '/project/.ringmaster/commands/plan.md' : null),
  commandHint: '.ringmaster/commands/NAME.md',
};

function problems(text: string): string[] {
  return parseWorkflow(text, 'w.yaml', 'project', CTX).problems.map(formatProblem);
}

describe('valid workflow files', () => {
  it('a loop workflow becomes one loop step with defaults applied and limits converted', () => {
    const r = parseWorkflow(
      `name: ralph
description: |
  Works through prd.json.
  One story per iteration.
agent: codex
model: gpt-5
loop:
  until: COMPLETE
  max_iterations: 20
  until_command: npm test -- --run "stories"
  max_cost: $7.50
  max_runtime: 1h30m
  idle_timeout: 90
prompt: Do one story. $USER_MESSAGE
`,
      '/p/ralph.yaml',
      'project',
      CTX,
    );
    expect(r.problems).toEqual([]);
    expect(r.workflow).toEqual({
      name: 'ralph',
      description: 'Works through prd.json.\nOne story per iteration.',
      kind: 'loop',
      agent: 'codex',
      model: 'gpt-5',
      file: '/p/ralph.yaml',
      source: 'project',
      steps: [
        {
          index: 1,
          name: 'ralph',
          prompt: { kind: 'text', text: 'Do one story. $USER_MESSAGE' },
          agent: null,
          model: null,
          clearContext: false,
          loop: { until: 'COMPLETE', maxIterations: 20, freshContext: false, untilCommand: ['npm', 'test', '--', '--run', 'stories'], maxCostUsd: 7.5, maxRuntimeMs: 5_400_000, idleTimeoutMs: 90_000 },
        },
      ],
    });
  });

  it('a steps workflow: names default to the command or step-N, a step may loop, clear_context and per-step agents kept', () => {
    const r = parseWorkflow(
      `name: pir
steps:
  - command: plan
  - name: implement
    agent: scripted
    loop: { until: DONE, max_iterations: 3, fresh_context: true, until_command: [make, check] }
    prompt: Implement.
  - prompt: Review.
    clear_context: true
    model: opus
`,
      '/p/pir.yaml',
      'built-in',
      CTX,
    );
    expect(r.problems).toEqual([]);
    expect(r.workflow?.kind).toBe('steps');
    expect(r.workflow?.description).toBe('');
    expect(r.workflow?.steps.map((s) => [s.index, s.name, s.prompt, s.agent, s.model, s.clearContext, s.loop?.maxIterations ?? null, s.loop?.freshContext ?? null, s.loop?.untilCommand ?? null])).toEqual([
      [1, 'plan', { kind: 'command', name: 'plan', path: '/project/.ringmaster/commands/plan.md' }, null, null, false, null, null, null],
      [2, 'implement', { kind: 'text', text: 'Implement.' }, 'scripted', null, false, 3, true, ['make', 'check']],
      [3, 'step-3', { kind: 'text', text: 'Review.' }, null, 'opus', true, null, null, null],
    ]);
  });

  it('max_iterations 1 is a valid loop (one iteration)', () => {
    expect(problems('name: once\nloop: {until: DONE, max_iterations: 1}\nprompt: go\n')).toEqual([]);
  });
});

describe('invalid workflow files: every problem, with its line', () => {
  it.each([
    [
      'both steps and loop',
      'name: x\nsteps:\n  - prompt: a\nloop:\n  until: DONE\n  max_iterations: 2\nprompt: b\n',
      ["w.yaml:4: loop: 'steps' and 'loop' cannot both be set: a workflow either runs its steps once, in order, or loops on one prompt (a step can have its own loop)"],
    ],
    ['loop without prompt', 'name: x\nloop:\n  until: DONE\n  max_iterations: 2\n', ["w.yaml:2: loop: a loop needs a 'prompt' (or 'command': a prompt file in .ringmaster/commands/)"]],
    ['neither steps nor loop', 'name: x\ndescription: nothing to do\n', ["w.yaml:1: a workflow needs 'steps' (prompts run once, in order) or a 'loop' with a 'prompt'"]],
    ['a prompt without a loop', 'name: x\nprompt: go\n', ["w.yaml:2: prompt: a top-level prompt needs a 'loop' (until, max_iterations); for prompts run once, use 'steps'"]],
    ['empty until', 'name: x\nloop:\n  until: "  "\n  max_iterations: 2\nprompt: go\n', ['w.yaml:3: loop.until: is empty: name the completion signal, e.g. COMPLETE']],
    ['missing until', 'name: x\nloop:\n  max_iterations: 2\nprompt: go\n', ['w.yaml:2: loop.until: required: the completion signal, e.g. COMPLETE']],
    ['max_iterations 0', 'name: x\nloop: {until: D, max_iterations: 0}\nprompt: go\n', ['w.yaml:2: loop.max_iterations: must be at least 1, got 0']],
    ['max_iterations negative', 'name: x\nloop:\n  until: D\n  max_iterations: -3\nprompt: go\n', ['w.yaml:4: loop.max_iterations: must be at least 1, got -3']],
    ['max_iterations not an integer', 'name: x\nloop:\n  until: D\n  max_iterations: 2.5\nprompt: go\n', ['w.yaml:4: loop.max_iterations: expected a whole number of at least 1, got 2.5']],
    ['max_iterations a string', 'name: x\nloop:\n  until: D\n  max_iterations: "ten"\nprompt: go\n', ['w.yaml:4: loop.max_iterations: expected a whole number of at least 1, got "ten"']],
    ['empty prompt in a loop', 'name: x\nloop: {until: D, max_iterations: 2}\nprompt: ""\n', ['w.yaml:3: prompt: the prompt is empty']],
    ['blank prompt in a loop', 'name: x\nloop: {until: D, max_iterations: 2}\nprompt: |\n  \n', ['w.yaml:3: prompt: the prompt is empty']],
    [
      'unknown keys at every level, with hints',
      'name: x\nprovider: claude\nsteps:\n  - prompt: a\n    clear_contex: true\n    loop:\n      until: D\n      max_iteration: 2\n      sleep: 5\n',
      [
        "w.yaml:2: provider: unknown key 'provider': Ringmaster calls it 'agent'",
        "w.yaml:5: steps.1.clear_contex: unknown key 'clear_contex' (did you mean 'clear_context'?); allowed here: name, prompt, command, agent, model, clear_context, loop",
        'w.yaml:6: steps.1.loop.max_iterations: required: a whole number of at least 1',
        "w.yaml:8: steps.1.loop.max_iteration: unknown key 'max_iteration' (did you mean 'max_iterations'?); allowed here: until, max_iterations, fresh_context, until_command, max_cost, max_runtime, idle_timeout",
        "w.yaml:9: steps.1.loop.sleep: unknown key 'sleep'; allowed here: until, max_iterations, fresh_context, until_command, max_cost, max_runtime, idle_timeout",
      ],
    ],
    [
      'steps: prompt and command both, neither, duplicate names, unknown agent and command, an empty list',
      'name: x\nagent: gpt\nsteps:\n  - prompt: a\n    command: plan\n  - name: a\n  - name: a\n    command: nope\n',
      [
        "w.yaml:2: agent: unknown agent 'gpt' (known: claude, codex, scripted)",
        "w.yaml:5: steps.1.command: give either 'prompt' or 'command', not both",
        "w.yaml:6: steps.2: a step needs a 'prompt' (or 'command': a prompt file in .ringmaster/commands/)",
        "w.yaml:7: steps.3.name: two steps are named 'a' (steps 2 and 3): give them distinct names",
        "w.yaml:8: steps.3.command: no prompt file for command 'nope' (looked for .ringmaster/commands/nope.md)",
      ],
    ],
    ['an empty list of steps', 'name: x\nsteps: []\n', ['w.yaml:2: steps: the list of steps is empty']],
    [
      'wrong types and values of the limits',
      'name: "bad name"\nloop:\n  until: D\n  max_iterations: 2\n  fresh_context: "no"\n  max_cost: lots\n  max_runtime: 5 minutes\n  until_command: ""\nprompt: go\n',
      [
        `w.yaml:1: name: "bad name" is not a valid name (letters, digits, '.', '_' and '-'; starting with a letter or digit)`,
        'w.yaml:5: loop.fresh_context: expected true or false, got "no"',
        'w.yaml:6: loop.max_cost: expected an amount in USD like 5 or 7.50, got "lots"',
        'w.yaml:7: loop.max_runtime: expected a duration like 90s, 5m or 4h, got "5 minutes"',
        'w.yaml:8: loop.until_command: the command is empty (or has an unterminated quote)',
      ],
    ],
    ['not a mapping', '- a\n- b\n', ['w.yaml:1: expected a mapping (name, description, then steps or loop + prompt), got a list']],
    ['an empty file', '# nothing\n', ["w.yaml:1: the file is empty: a workflow needs a 'name' and 'steps' or a 'loop' with a 'prompt'"]],
    ['invalid YAML', 'name: x\nsteps:\n  - prompt: a\n   bad: indentation\n', ['w.yaml:4: invalid YAML: Sequence item without - indicator']],
    ['a duplicate key', 'name: x\nname: y\nsteps:\n  - prompt: a\n', ['w.yaml:2: invalid YAML: Map keys must be unique']],
  ])('%s', (_what, text, expected) => {
    expect(problems(text)).toEqual(expected);
  });
});
