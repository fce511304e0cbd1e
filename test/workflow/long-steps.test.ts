// A long steps workflow costs the same per step whatever its length (issue 21): what is rewritten after every step
// (runs.meta) holds the current step only, the resolved steps are stored once (run_definitions), `show` and
// `show --json` still list every step's outcome, and a resumed run continues at the step it failed at.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { openTestStore } from '../helpers/home.js';
import { env } from './run-harness.js';

const STEPS = 60;
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A workspace (not a git repository) with a workflow of STEPS one-shot steps and an agent that logs its prompts and fails at step 30 while `fail` exists. */
function workspace(): { dir: string; agent: string } {
  const dir = mkdtempSync(join(tmpdir(), 'rm-long-steps-'));
  dirs.push(dir);
  mkdirSync(join(dir, '.ringmaster', 'workflows'), { recursive: true });
  const lines = ['name: long', 'steps:'];
  for (let i = 1; i <= STEPS; i++) lines.push(`  - name: step-${i}`, `    prompt: "step ${i}"`);
  writeFileSync(join(dir, '.ringmaster', 'workflows', 'long.yaml'), `${lines.join('\n')}\n`);
  const agent = join(dir, 'agent.sh');
  writeFileSync(agent, '#!/bin/sh\np=$(cat)\necho "$p" >> prompts.log\nif [ "$p" = "step 30" ] && [ -e fail ]; then echo "step 30 broke" >&2; exit 1; fi\n');
  chmodSync(agent, 0o755);
  writeFileSync(join(dir, 'fail'), '');
  return { dir, agent };
}

it('stores the steps once and the current step after each; show lists every step; resume continues at the failed step', async () => {
  const { dir, agent } = workspace();
  const first = await runCli(['workflow', 'run', 'long', '--agent-command', agent, '--checkpoint-interval', '0', '--json'], { cwd: dir, env: env() });
  expect(first.code, first.stderr).toBe(1);
  const id = (JSON.parse(first.stdout.split('\n')[0] ?? '{}') as { run_id: string }).run_id;
  const store = await openTestStore();
  try {
    const failed = await store.getRun(id);
    // The metadata of a failed 60-step run: the workflow, the step it failed at, no list of steps.
    expect(Object.keys(failed?.meta ?? {}).sort()).toEqual(['current_step', 'description', 'iteration_count', 'iterations_total', 'max_iterations', 'previous_output', 'step', 'steps_total', 'user_message', 'workflow', 'workflow_kind']);
    expect(failed?.meta).toMatchObject({ current_step: { number: 30, name: 'step-30' }, steps_total: STEPS, iterations_total: 30, step: { name: 'step-30', status: 'failed', iterations: 1 } });
    const definition = (await store.getRunDefinition(id)) as { steps: Array<{ name: string; prompt: { text: string } }> };
    expect(definition.steps.map((s) => s.prompt.text)).toEqual(Array.from({ length: STEPS }, (_, i) => `step ${i + 1}`));
  } finally {
    await store.close();
  }

  rmSync(join(dir, 'fail'));
  const resumed = await runCli(['resume', id], { cwd: dir, env: env() });
  expect(resumed.code, resumed.stdout).toBe(0);
  // One warning line for the steps that cannot carry a session, however many there are.
  expect(resumed.stderr).toBe(`WARNING: ${STEPS - 1} steps, step 2 (step-2) to step ${STEPS} (step-${STEPS}): agent 'command' cannot resume sessions: each iteration will be a new session\n`);
  expect(resumed.stdout).toContain(`Workflow complete: long (${STEPS} steps, ${STEPS + 1} iterations)`);
  const prompts = readFileSync(join(dir, 'prompts.log'), 'utf8').trim().split('\n');
  expect(prompts).toEqual([...Array.from({ length: 30 }, (_, i) => `step ${i + 1}`), ...Array.from({ length: STEPS - 29 }, (_, i) => `step ${i + 30}`)]);

  const shown = JSON.parse((await runCli(['show', id, '--json'], { cwd: dir, env: env() })).stdout) as { run: { meta: { steps: Array<Record<string, unknown>>; definition: { steps: unknown[] }; current_step: unknown } } };
  const { meta } = shown.run;
  expect(meta.current_step).toBeNull();
  expect(meta.definition.steps).toHaveLength(STEPS);
  expect(meta.steps.map((s) => [s.name, s.status, s.iterations, s.max_iterations, s.message, s.cost_unknown])).toEqual(
    Array.from({ length: STEPS }, (_, i) => [`step-${i + 1}`, 'completed', i === 29 ? 2 : 1, 1, null, true]),
  );
  const text = await runCli(['show', id], { cwd: dir, env: env() });
  expect(text.stdout).toMatch(/^\s+30\s+step-30\s+completed\s+2\/1\s/m);
  expect(text.stdout).toMatch(/^\s+60\s+step-60\s+completed\s+1\/1\s/m);
  // Not a git workspace: no trees were stored, so no diff.
  const diff = await runCli(['diff', id, '--iteration', '1'], { cwd: dir, env: env() });
  expect([diff.code, diff.stdout]).toEqual([64, '']);
  expect(diff.stderr).toContain(`iteration 1 of run ${id} has no recorded changes: change tracking did not snapshot it (not a git workspace, or loop.track_changes: false)`);
}, 120_000);
