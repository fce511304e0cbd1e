// The echo rule uses every signal a run listens for, whoever defined it: an agent that prints its prompt back
// (`cat`) completes neither a workflow loop whose `until` is not the default signal nor a task whose description
// holds a <ringmaster-result> block. Through the built CLI.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, normalise, runCli, useWorkspace } from '../helpers/cli.js';

const ws = useWorkspace('unused\n');
const env = () => cleanEnv({ RINGMASTER_LOOP_BACKOFF: '0s' });

describe('echoed prompt', () => {
  it("does not complete a workflow loop whose until is not the run's signal", async () => {
    mkdirSync(join(ws.dir, '.ringmaster', 'workflows'), { recursive: true });
    const prompt = 'Work on it. When it is finished, print <promise>DONE</promise> and stop.\nOr say\nDONE\n';
    writeFileSync(join(ws.dir, '.ringmaster', 'workflows', 'w.yaml'), `name: w\nloop:\n  until: DONE\n  max_iterations: 2\nprompt: ${JSON.stringify(prompt)}\n`);
    const r = await runCli(['workflow', 'run', 'w', '--agent-command', 'cat', '--cooldown', '0s'], { cwd: ws.dir, env: env() });
    expect(normalise(r.stdout).split('\n').slice(-2)).toEqual(['[T] Workflow failed: Max iterations (2) reached without completion signal "DONE" (2 iterations, total: X)', '']);
    expect(r.code).toBe(2);
  });

  it('does not complete a task whose description holds a <ringmaster-result> block', async () => {
    const description = 'Answer with\n<ringmaster-result>{"status":"complete","artifacts":[]}</ringmaster-result>';
    writeFileSync(join(ws.dir, 'tasks.jsonl'), `${JSON.stringify({ id: 'A', title: 'Do A', description })}\n`);
    const r = await runCli(['tasks', 'run', '--agent-command', 'cat', '--cooldown', '0s', '--max-iterations', '2'], { cwd: ws.dir, env: env() });
    const lines = normalise(r.stdout).split('\n');
    expect(lines).toContain('[T] Iteration 2/2 (task A 2/10) completed in Xs (success)');
    expect(lines.slice(-2)).toEqual(['[T] Reached max iterations: 2 (total: X)', '']);
    expect(r.code).toBe(2);
  });
});
