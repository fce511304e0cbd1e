// `ringmaster workflow list|validate|schema|run --dry-run` through the built CLI: exact output, exit codes.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';

let ws: { dir: string; cleanup: () => void };
beforeEach(() => {
  ws = tempDir('ringmaster-workflow-');
  mkdirSync(join(ws.dir, '.ringmaster', 'workflows'), { recursive: true });
  mkdirSync(join(ws.dir, '.ringmaster', 'commands'), { recursive: true });
});
afterEach(() => ws.cleanup());

function write(name: string, text: string): void {
  writeFileSync(join(ws.dir, '.ringmaster', name), text);
}

const cli = (...args: string[]) => runCli(args, { cwd: ws.dir });

describe('workflow validate', () => {
  it('reports every problem of every file with file, line and reason, and exits 64 (seed 004 loader rules)', async () => {
    write('workflows/both.yaml', 'name: both\nsteps:\n  - prompt: plan it\nloop:\n  until: COMPLETE\n  max_iterations: 3\nprompt: go\n');
    write('workflows/empty-prompt.yaml', 'name: empty-prompt\nloop:\n  until: COMPLETE\n  max_iterations: 3\nprompt: ""\n');
    write('workflows/limits.yml', 'name: limits\nloop:\n  until: ""\n  max_iterations: 0.5\n  fresh_contxt: true\nprompt: go\n');
    write('workflows/neither.yaml', 'name: neither\ndescription: nothing\n');
    write('workflows/no-prompt.yaml', 'name: no-prompt\nloop:\n  until: COMPLETE\n  max_iterations: 3\n');
    write('workflows/ok.yaml', 'name: ok\ndescription: fine\nloop: { until: COMPLETE, max_iterations: 1 }\nprompt: go\n');
    const r = await cli('workflow', 'validate');
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      [
        ".ringmaster/workflows/both.yaml:4: loop: 'steps' and 'loop' cannot both be set: a workflow either runs its steps once, in order, or loops on one prompt (a step can have its own loop)",
        '.ringmaster/workflows/empty-prompt.yaml:5: prompt: the prompt is empty',
        '.ringmaster/workflows/limits.yml:3: loop.until: is empty: name the completion signal, e.g. COMPLETE',
        '.ringmaster/workflows/limits.yml:4: loop.max_iterations: expected a whole number of at least 1, got 0.5',
        ".ringmaster/workflows/limits.yml:5: loop.fresh_contxt: unknown key 'fresh_contxt' (did you mean 'fresh_context'?); allowed here: until, max_iterations, fresh_context, until_command, max_cost, max_runtime, idle_timeout",
        ".ringmaster/workflows/neither.yaml:1: a workflow needs 'steps' (prompts run once, in order) or a 'loop' with a 'prompt'",
        ".ringmaster/workflows/no-prompt.yaml:2: loop: a loop needs a 'prompt' (or 'command': a prompt file in .ringmaster/commands/)",
        'ok  .ringmaster/workflows/ok.yaml: ok (loop until "COMPLETE", max 1 iterations)',
        '7 problems in 5 files',
        '',
      ].join('\n'),
    );
    expect(r.code).toBe(64);
  });

  it('validates the files named on the command line; all valid exits 0', async () => {
    write('commands/plan.md', '# Plan\n\n$USER_MESSAGE\n');
    write('workflows/pir.yaml', 'name: pir\nsteps:\n  - command: plan\n  - name: build\n    loop: {until: DONE, max_iterations: 4}\n    prompt: build\n');
    const r = await cli('workflow', 'validate', '.ringmaster/workflows/pir.yaml');
    expect([r.code, r.stdout, r.stderr]).toEqual([0, 'ok  .ringmaster/workflows/pir.yaml: pir (2 steps: plan → build (loop))\n', '']);
    const missing = await cli('workflow', 'validate', 'nope.yaml');
    expect([missing.code, missing.stdout]).toEqual([64, 'nope.yaml:1: no such file\n1 problem in 1 file\n']);
  });

  it('says so when the project has no workflow files', async () => {
    const r = await cli('workflow', 'validate');
    expect([r.code, r.stdout]).toEqual([0, 'no workflow files in .ringmaster/workflows\n']);
  });
});

describe('workflow list', () => {
  it('lists the project workflows, then the built-in ones (a project workflow hides a built-in one of its name)', async () => {
    write('workflows/a-ralph.yaml', 'name: ralph\ndescription: |\n  Our own ralph.\n  Second line.\nloop: {until: DONE, max_iterations: 2}\nprompt: go\n');
    write('workflows/broken.yaml', 'name: broken\n');
    const r = await cli('workflow', 'list');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').map((l) => l.replace(/\s+/g, ' ').trim())).toEqual([
      'NAME KIND DESCRIPTION FILE',
      'ralph loop Our own ralph. .ringmaster/workflows/a-ralph.yaml',
      '- invalid 1 problem(s): ringmaster workflow validate .ringmaster/workflows/broken.yaml',
      'plan-implement-review steps Plan once, implement in a loop until the plan is done, then review once with a fresh session. (built-in)',
      "ralph loop Autonomous loop that implements the user stories of prd.json, one story per iteration. (built-in, hidden by the project's)",
      '',
    ]);
    const json = JSON.parse((await cli('workflow', 'list', '--json')).stdout) as Array<Record<string, unknown>>;
    expect(json.map((w) => [w.name, w.kind, w.source, w.shadowed])).toEqual([
      ['ralph', 'loop', 'project', false],
      [null, null, 'project', false],
      ['plan-implement-review', 'steps', 'built-in', false],
      ['ralph', 'loop', 'built-in', true],
    ]);
  });
});

/** A YAML alias bomb: each line's alias expands the one above nine times (9^7 nodes). */
const ALIAS_BOMB = ['a: &a [x, x, x, x, x, x, x, x, x]', ...'bcdefg'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefg'[i] ?? ''}`).join(', ')}]`), ''].join('\n');

describe('a YAML alias bomb in one workflow file (and a byte order mark in another)', () => {
  it('is that file\'s problem, with its line: list, validate and run of the others still work', async () => {
    write('workflows/bomb.yaml', ALIAS_BOMB);
    // (ok.yaml starts with a UTF-8 byte order mark, as some editors write it: that is fine.)
    write('workflows/ok.yaml', '\uFEFFname: ok\nloop: { until: COMPLETE, max_iterations: 1 }\nprompt: go\n');
    const problem = '.ringmaster/workflows/bomb.yaml:2: invalid YAML: its aliases expand too much (more than 100 expansions): write the values out, or use fewer aliases';
    const validate = await cli('workflow', 'validate');
    expect([validate.code, validate.stdout, validate.stderr]).toEqual([64, `${problem}\nok  .ringmaster/workflows/ok.yaml: ok (loop until "COMPLETE", max 1 iterations)\n1 problem in 1 file\n`, '']);
    const list = await cli('workflow', 'list');
    expect([list.code, list.stderr]).toEqual([0, '']);
    expect(list.stdout.split('\n').map((l) => l.replace(/\s+/g, ' ').trim()).slice(1, 3)).toEqual(['- invalid 1 problem(s): ringmaster workflow validate .ringmaster/workflows/bomb.yaml', 'ok loop .ringmaster/workflows/ok.yaml']);
    const run = await cli('workflow', 'run', 'ok', '--dry-run');
    expect([run.code, run.stderr]).toEqual([0, '']);
    const bomb = await cli('workflow', 'run', 'bomb', '--dry-run');
    expect([bomb.code, bomb.stderr]).toEqual([64, `ringmaster workflow: ${problem}\n`]);
  });
});

describe('workflow schema', () => {
  it('prints the JSON Schema that docs/workflow.schema.json holds (editors point at it)', async () => {
    const r = await cli('workflow', 'schema');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync(join(ROOT, 'docs', 'workflow.schema.json'), 'utf8'));
    const schema = JSON.parse(r.stdout) as { required: string[]; additionalProperties: boolean; properties: { loop: { required: string[] } } };
    expect(schema.required).toEqual(['name']);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.loop.required).toEqual(['until', 'max_iterations']);
  });
});

describe('workflow run --dry-run', () => {
  it('prints every step resolved, its command line and its prompt with the variables known before the run', async () => {
    write('commands/plan.md', '# Plan\n\nRequest: $USER_MESSAGE\nRun: $WORKFLOW_ID\n');
    write(
      'workflows/pir.yaml',
      'name: pir\nagent: codex\nsteps:\n  - command: plan\n  - name: implement\n    loop: {until: DONE, max_iterations: 4, fresh_context: true}\n    prompt: "Iteration $ITERATION of $MAX_ITERATIONS. Before: $PREVIOUS_OUTPUT. $HOME stays."\n  - name: review\n    clear_context: true\n    prompt: Review $USER_MESSAGE\n',
    );
    const r = await cli('workflow', 'run', 'pir', 'add a greeting', '--dry-run', '--agent-command', 'my-agent --fast', '--max-iterations', '2');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        '[DRY RUN] Workflow: pir (3 steps) from .ringmaster/workflows/pir.yaml',
        '[DRY RUN] Message: add a greeting',
        '[DRY RUN] $WORKFLOW_ID and $PREVIOUS_OUTPUT are filled in when the workflow runs.',
        '',
        '[DRY RUN] Step 1/3: plan',
        `[DRY RUN]   agent: command; runs once, prompt from ${join(ws.dir, '.ringmaster', 'commands', 'plan.md')}`,
        "[DRY RUN]   session: agent 'command' cannot resume sessions: every iteration is a new session",
        '[DRY RUN]   Would execute with: my-agent --fast',
        '',
        '# Plan',
        '',
        'Request: add a greeting',
        'Run: $WORKFLOW_ID',
        '',
        '[DRY RUN] Step 2/3: implement',
        '[DRY RUN]   agent: command; loops until "DONE", max 2 iterations',
        "[DRY RUN]   session: agent 'command' cannot resume sessions: every iteration is a new session",
        '[DRY RUN]   Would execute with: my-agent --fast',
        '',
        'Iteration 1 of 2. Before: $PREVIOUS_OUTPUT. $HOME stays.',
        '',
        '[DRY RUN] Step 3/3: review',
        '[DRY RUN]   agent: command; runs once',
        "[DRY RUN]   session: agent 'command' cannot resume sessions: every iteration is a new session",
        '[DRY RUN]   Would execute with: my-agent --fast',
        '',
        'Review add a greeting',
        '',
      ].join('\n'),
    );
  });

  it("uses the workflow's agent, and says how sessions carry over for an agent that resumes", async () => {
    write('workflows/loop.yaml', 'name: loop\nagent: codex\nmodel: gpt-5\nloop: {until: DONE, max_iterations: 3}\nprompt: go $ITERATION/$MAX_ITERATIONS\n');
    const r = await cli('workflow', 'run', 'loop', '--dry-run');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.slice(0, 8)).toEqual([
      '[DRY RUN] Workflow: loop (loop) from .ringmaster/workflows/loop.yaml',
      '[DRY RUN] Message: (none)',
      '[DRY RUN] $WORKFLOW_ID and $PREVIOUS_OUTPUT are filled in when the workflow runs.',
      '',
      '[DRY RUN] Step 1/1: loop',
      '[DRY RUN]   agent: codex (model gpt-5); loops until "DONE", max 3 iterations',
      '[DRY RUN]   session: new session; iterations 2.. resume the session',
      expect.stringMatching(/^\[DRY RUN\] {3}Would execute with: codex exec .*--model gpt-5/) as string,
    ]);
    expect(lines.slice(8)).toEqual(['', 'go 1/3', '']);
  });

  it('refuses an unknown workflow, naming the known ones, and an invalid one with its problems (exit 64)', async () => {
    write('workflows/bad.yaml', 'name: bad\nloop: {until: DONE, max_iterations: 0}\nprompt: go\n');
    const unknown = await cli('workflow', 'run', 'nope', '--dry-run');
    expect([unknown.code, unknown.stdout, unknown.stderr]).toEqual([
      64,
      '',
      "ringmaster workflow: no workflow named 'nope' (known: plan-implement-review, ralph); 1 workflow file(s) have problems: run 'ringmaster workflow validate'\n",
    ]);
    const bad = await cli('workflow', 'run', 'bad', '--dry-run');
    expect([bad.code, bad.stderr]).toEqual([64, 'ringmaster workflow: .ringmaster/workflows/bad.yaml:2: loop.max_iterations: must be at least 1, got 0\n']);
    const usage = await cli('workflow', 'run', 'ralph', '--unlimited', '--dry-run');
    expect([usage.code, usage.stderr]).toEqual([64, 'ringmaster workflow: --unlimited: a workflow loop always has max_iterations (override it with --max-iterations N)\n']);
  });
});

describe('the shipped workflows', () => {
  it('ralph and plan-implement-review are valid: a loop on prd.json, and plan → loop implement → review', async () => {
    const r = await cli('workflow', 'validate', join(ROOT, 'workflows', 'ralph.yaml'), join(ROOT, 'workflows', 'plan-implement-review.yaml'));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        `ok  ${join(ROOT, 'workflows', 'ralph.yaml')}: ralph (loop until "COMPLETE", max 20 iterations)`,
        `ok  ${join(ROOT, 'workflows', 'plan-implement-review.yaml')}: plan-implement-review (3 steps: plan → implement (loop) → review)`,
        '',
      ].join('\n'),
    );
    const dry = await cli('workflow', 'run', 'ralph', 'only the login stories', '--dry-run', '--agent', 'scripted');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('\n1. Read `prd.json` in the current directory\n');
    expect(dry.stdout).toContain('\n## User Intent\n\nonly the login stories\n');
    expect(dry.stdout).toContain('\nThis is iteration 1 of at most 20.\n');
    expect(dry.stdout).toContain('\n<promise>COMPLETE</promise>\n');
  });
});

describe('the README examples', () => {
  it('every workflow file shown in README.md is valid', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```yaml\n(# \.ringmaster\/workflows\/([\w-]+\.yaml)[^\n]*\n[\s\S]*?)```/g)];
    expect(blocks.map((b) => b[2])).toEqual(['ralph.yaml', 'plan-implement-review.yaml']);
    for (const [, text, file] of blocks) write(`workflows/${file ?? ''}`, text ?? '');
    write('commands/review.md', 'Review the changes. $USER_MESSAGE\n');
    const r = await cli('workflow', 'validate');
    expect(r.stdout).toBe(
      [
        'ok  .ringmaster/workflows/plan-implement-review.yaml: plan-implement-review (3 steps: plan → implement (loop) → review)',
        'ok  .ringmaster/workflows/ralph.yaml: ralph (loop until "COMPLETE", max 20 iterations)',
        '',
      ].join('\n'),
    );
    expect(r.code).toBe(0);
  });
});
