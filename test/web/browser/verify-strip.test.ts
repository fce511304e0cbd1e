// The run page's verify strip on a real `ringmaster serve`: a run whose first two claims fail their check and whose
// third passes shows fail, fail, pass over its iterations next to the cost chart, with the words below.
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPage, screenshot, until, useServeAndBrowser } from './harness.js';

const t = useServeAndBrowser();

// Claims completion every iteration; from the third on it has made the check pass first.
const AGENT = `#!/bin/sh
cat >/dev/null
n=$(cat .n 2>/dev/null || echo 0); n=$((n+1)); echo $n > .n
if [ $n -ge 3 ]; then touch fixed; fi
echo 'done <promise>COMPLETE</promise>'
`;
const CHECK = 'if [ -e fixed ]; then echo ok; exit 0; fi\necho "1 test failed"\nexit 1\n';

describe('run page: verify strip', () => {
  it('charts failing-then-passing checks over the iterations', async () => {
    const dir = t.serve.workspace({ 'agent.sh': AGENT, 'check.sh': CHECK });
    chmodSync(join(dir, 'agent.sh'), 0o755);
    const { id } = await t.serve.api<{ id: string }>('/api/runs', { workspace: dir, prompt: 'Fix the test', agent_command: [join(dir, 'agent.sh')], verify: 'sh check.sh', cooldown: 0, checkpoint_interval: 0, max_iterations: 5, failure_threshold: 3 });
    await until('the run completed', async () => ((await t.serve.api<{ run: { status: string } }>(`/api/runs/${id}`)).run.status === 'completed' ? true : null));
    const page = await openPage(t.browser, `${t.serve.url}/runs/${id}?tab=cost`);
    await page.getByTestId('verify-strip').waitFor();
    expect(await page.getByTestId('verify-strip-cell').evaluateAll((cells) => cells.map((c) => [c.textContent, c.getAttribute('data-verify')]))).toEqual([
      ['1', 'fail'],
      ['2', 'fail'],
      ['3', 'pass'],
    ]);
    expect(await page.getByTestId('verify-strip-cell').first().getAttribute('title')).toBe('iteration 1: failed: sh check.sh exited 1\n1 test failed');
    expect(await page.getByTestId('verify-strip-summary').textContent()).toBe('3 checks: 1 passed, 2 failed; the last (iteration 3) passed.');
    await screenshot(page, 'run-verify-strip');
    await page.context().close();
  });
});
