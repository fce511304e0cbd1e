// The dashboard's views on real runs of a real `ringmaster serve`: a run page with 100,000 lines of output
// (follow, scroll up, jump back, search, ANSI colours), a structured agent's markdown and tool calls, the
// iterations table (an iteration's diff), the cost projection, a checkpoint's diff, board filters kept in the URL, keyboard
// navigation, phone width and the dark theme. Screenshots go to artifactsDir().
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planAgent } from '../../helpers/cli.js';
import { launchBrowser, openPage, screenshot, ServeProcess, until } from './harness.js';

let serve: ServeProcess;
let browser: Browser;
const runs: Record<'flood' | 'claude' | 'quick' | 'three', { id: string; dir: string }> = { flood: { id: '', dir: '' }, claude: { id: '', dir: '' }, quick: { id: '', dir: '' }, three: { id: '', dir: '' } };

// 100,000 lines, every tenth green, then it waits for .gate before it signals completion.
const FLOOD = `#!/bin/sh
cat >/dev/null
awk 'BEGIN { for (i = 1; i <= 100000; i++) if (i % 10 == 0) printf "\\033[32mline %d ok\\033[0m\\n", i; else printf "line %d\\n", i }'
while [ ! -e .gate ]; do sleep 0.05; done
echo '<promise>COMPLETE</promise>'
`;

// Three iterations of 300 lines each; only the first prints the needle.
const THREE = `#!/bin/sh
cat >/dev/null
n=$(( $(cat .n 2>/dev/null || echo 0) + 1 )); echo $n > .n
awk -v n=$n 'BEGIN { for (i = 1; i <= 300; i++) printf "iteration %d line %d\\n", n, i; if (n == 1) print "needle only in one" }'
`;

beforeAll(async () => {
  [serve, browser] = await Promise.all([ServeProcess.start(), launchBrowser()]);
  const create = async (dir: string, body: Record<string, unknown>): Promise<{ id: string; dir: string }> => ({
    id: (await serve.api<{ id: string }>('/api/runs', { workspace: dir, cooldown: 0, checkpoint_interval: 0, ...body })).id,
    dir,
  });
  const flood = serve.workspace({ 'flood.sh': FLOOD });
  chmodSync(join(flood, 'flood.sh'), 0o755);
  runs.flood = await create(flood, { prompt: 'Print a flood of lines', agent_command: [join(flood, 'flood.sh')], max_iterations: 1 });
  runs.claude = await create(serve.workspace({ 'README.md': 'hello\n', '.claude-plan': 'work,work,gate' }), { prompt: 'Fix the failing test', agent: 'claude', max_cost: 5, max_iterations: 40, checkpoint_interval: 1 });
  runs.quick = await create(serve.workspace(), { prompt: 'Write the README', agent_command: planAgent('ok,complete'), checkpoint_interval: 1 });
  const three = serve.workspace({ 'three.sh': THREE });
  chmodSync(join(three, 'three.sh'), 0o755);
  runs.three = await create(three, { prompt: 'Three iterations', agent_command: [join(three, 'three.sh')], max_iterations: 3 });
  await until('the claude run at its third iteration, the quick and three runs done', async () => {
    const claude = await serve.api<{ run: { last_iteration: number } }>(`/api/runs/${runs.claude.id}`);
    const done = await Promise.all([runs.quick.id, runs.three.id].map((id) => serve.api<{ run: { status: string } }>(`/api/runs/${id}`)));
    return claude.run.last_iteration === 3 && done.every((d) => d.run.status === 'stopped' || d.run.status === 'completed') ? true : null;
  });
});

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

describe('run page', () => {
  it('100,000 lines: follows the end, pauses when scrolled up, jumps back; search; ANSI colours', async () => {
    const page = await openPage(browser, `${serve.url}/runs/${runs.flood.id}`);
    const count = page.getByTestId('output-count');
    await page.waitForFunction(() => document.querySelector('[data-testid="output-count"]')?.textContent === '100,001 rows', undefined, { timeout: 60_000 });
    const lastLine = page.getByTestId('output-line').filter({ hasText: /^line 100000 ok$/ });
    await lastLine.waitFor();
    expect(await lastLine.locator('.ansi-green').textContent()).toBe('line 100000 ok');
    expect(await page.getByTestId('jump-to-end').count()).toBe(0);

    const scroller = page.getByTestId('output-scroll');
    await scroller.hover();
    await page.mouse.wheel(0, -3000);
    await page.getByTestId('jump-to-end').waitFor();
    expect(await lastLine.count()).toBe(0);
    await page.getByTestId('jump-to-end').click();
    await lastLine.waitFor();
    expect(await page.getByTestId('jump-to-end').count()).toBe(0);

    await page.keyboard.press('/');
    await page.keyboard.type('line 5000');
    expect(await page.getByTestId('search-count').textContent()).toBe('11 matches');
    await page.keyboard.press('Enter');
    expect(await page.getByTestId('search-count').textContent()).toBe('1 of 11');
    await page.locator('.current-match').filter({ hasText: /^line 5000 ok$/ }).waitFor();
    await page.getByTestId('jump-to-end').waitFor();
    await screenshot(page, 'run-output-100k');

    // Live output goes on while the user looks elsewhere: counted on the button, shown when they jump back.
    writeFileSync(join(runs.flood.dir, '.gate'), '');
    await page.getByTestId('jump-to-end').filter({ hasText: /^1 new — follow live output \(f\)$/ }).waitFor();
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('f');
    await page.getByTestId('output-line').filter({ hasText: /^<promise>COMPLETE<\/promise>$/ }).waitFor();
    expect(await count.textContent()).toBe('100,002 rows');
    await page.context().close();
  });

  it("the run's whole output: earlier iterations come in as the user scrolls up, with how each ended; search finds what only iteration 1 printed", async () => {
    const page = await openPage(browser, `${serve.url}/runs/${runs.three.id}`);
    const line = (text: string) => page.getByTestId('output-line').filter({ hasText: new RegExp(`^${text}$`) });
    await line('iteration 3 line 300').waitFor();
    // A search over the whole run: the server says iteration 1 has it, which is loaded and the hit shown.
    await page.keyboard.press('/');
    await page.keyboard.type('needle only');
    await page.getByTestId('search-count').filter({ hasText: /^1 match$/ }).waitFor();
    await page.keyboard.press('Enter');
    expect(await page.getByTestId('search-count').textContent()).toBe('1 of 1');
    await page.locator('.current-match').filter({ hasText: /^needle only in one$/ }).waitFor();
    // Every iteration is there, in order, each header saying how it ended and how long it took.
    const scroller = page.getByTestId('output-scroll');
    await scroller.evaluate((el) => (el.scrollTop = 0));
    await line('iteration 1 line 1').waitFor();
    expect(await page.getByTestId('output-count').textContent()).toBe(`${3 * 301 + 1} rows`);
    expect(await page.getByTestId('load-earlier').count()).toBe(0);
    expect(await page.getByTestId('output-iteration').first().textContent()).toMatch(/^Iteration 1 · \d\d?:\d\d:\d\d( [AP]M)? · done · [\d.]+m?s$/);
    await page.context().close();

    // A reload: the newest iteration first, the earlier ones as the user scrolls up to them.
    const again = await openPage(browser, `${serve.url}/runs/${runs.three.id}`);
    await again.getByTestId('output-line').filter({ hasText: /^iteration 3 line 300$/ }).waitFor();
    const top = again.getByTestId('output-line').filter({ hasText: /^iteration 1 line 1$/ });
    await until('iteration 1 scrolled into view', async () => {
      await again.getByTestId('output-scroll').evaluate((el) => (el.scrollTop = 0));
      return (await top.count()) > 0 ? true : null;
    });
    await screenshot(again, 'run-whole-output');
    await again.context().close();
  });

  it("a structured agent: markdown, tool calls with their results (ANSI), the iterations table opening an iteration's output", async () => {
    const page = await openPage(browser, `${serve.url}/runs/${runs.claude.id}`);
    // The newest iteration's (the earlier ones come in above it).
    const markdown = page.getByTestId('output-text').filter({ has: page.locator('h2', { hasText: 'Plan 3' }) });
    await markdown.waitFor();
    expect(await markdown.locator('h2').textContent()).toBe('Plan 3');
    expect(await markdown.locator('strong').textContent()).toBe('fix');
    expect(await markdown.locator('code').textContent()).toBe('src/a.ts');
    const tool = page.getByTestId('output-tool').last();
    expect(await tool.locator('summary').textContent()).toBe('Bash npm testrunning…');

    await page.getByRole('tab', { name: 'iterations' }).click();
    const rows = page.getByTestId('iteration-row');
    expect(await rows.allTextContents()).toEqual([expect.stringMatching(/^3running/), expect.stringMatching(/^2success.*\$0\.5000/), expect.stringMatching(/^1success.*\$0\.5000/)]);
    await rows.last().getByRole('button', { name: 'open the output of iteration 1' }).click();
    await page.getByText('Iteration 1 only.').waitFor();
    await page.getByTestId('output-text').filter({ hasText: 'Fixed it in iteration 1.' }).waitFor();
    expect(await page.getByTestId('output-iteration').allTextContents()).toEqual([expect.stringMatching(/^Iteration 1 · /)]);
    const done = page.getByTestId('output-tool').first();
    expect(await done.locator('summary').textContent()).toMatch(/^Bash npm test[\d.]+m?serror$/);
    await done.locator('summary').click();
    expect(await done.locator('.ansi-red').textContent()).toBe('1 failed');
    expect(await page.getByTestId('output-text').last().textContent()).toBe('Fixed it in iteration 1.');
    await screenshot(page, 'run-structured');
    await page.context().close();
  });

  it('cost: spent against the budget and where the run ends at this pace; a checkpoint’s diff side by side or unified', async () => {
    const page = await openPage(browser, `${serve.url}/runs/${runs.claude.id}?tab=cost`);
    const projection = page.getByTestId('projection');
    await projection.waitFor();
    // 2 finished iterations at $0.50 of a $5 budget: 8 more reach it, long before the 40-iteration limit.
    expect(await projection.textContent()).toMatch(
      /^Spent \$1\.00 of \$5\.00\. About \$0\.5000 and [\d.hms]+ per iteration lately\. At this pace it ends after iteration 10 on its budget, at about \$5\.00, in about [\d.hms]+\.$/,
    );
    await page.getByTestId('cost-chart').locator('canvas').waitFor();
    expect(await page.locator('.u-legend .u-series').allTextContents()).toEqual(expect.arrayContaining([expect.stringMatching(/^budget/), expect.stringMatching(/^projected/)]));
    // One dollar axis for every series (a second one for the bars was read against the first one's grid), and a
    // legend that names the series without '--' placeholders before the pointer is on the chart.
    expect(await page.getByTestId('cost-chart').locator('.u-axis').count()).toBe(2);
    expect((await page.locator('.u-legend').textContent()) ?? '').not.toContain('--');
    await screenshot(page, 'run-cost');

    await page.getByRole('tab', { name: 'checkpoints' }).click();
    expect(await page.getByTestId('checkpoints').locator('li').allTextContents()).toEqual([expect.stringMatching(/^iteration 2 · [0-9a-f]{10} · committed/), expect.stringMatching(/^iteration 1 · [0-9a-f]{10} · committed/)]);
    const diff = page.getByTestId('diff');
    await diff.waitFor();
    expect(await diff.locator('.diff-file h3').allTextContents()).toEqual(['.claude-count +1 −1']);
    await diff.getByRole('button', { name: 'unified' }).click();
    expect(await diff.locator('.diff-unified').count()).toBe(1);
    await page.context().close();
  });

  it("an iteration's row opens the files it changed and that iteration's diff", async () => {
    const page = await openPage(browser, `${serve.url}/runs/${runs.quick.id}?tab=iterations`);
    const files = page.getByTestId('iteration-row').first().getByTestId('files-changed');
    await files.locator('summary').click();
    expect(await files.locator('li').allTextContents()).toEqual(['~ .plan-agent-count', '+ .plan-agent-prompt-2']);
    await files.getByRole('button', { name: 'show the diff' }).click();
    const diff = files.getByTestId('diff');
    await diff.waitFor();
    expect(await diff.locator('.diff-file h3').allTextContents()).toEqual(['.plan-agent-count +1 −1', '.plan-agent-prompt-2 +1 −0']);
    await page.context().close();
  });

  it('an agent that reports no cost: "cost unknown" in words, no flat chart', async () => {
    const page = await openPage(browser, `${serve.url}/runs/${runs.quick.id}?tab=cost`);
    await page.getByTestId('cost-unknown').waitFor();
    expect(await page.getByTestId('cost-chart').count()).toBe(0);
    // Created through the API without a budget: the server's default of $300 applies, and cannot hold this agent.
    expect(await page.getByTestId('projection').textContent()).toBe('Spent: cost unknown: the budget of $300.00 cannot hold it.');
    expect(await page.locator('body').textContent()).not.toContain('+?');
    // How it ended, at a glance (a limit or an overspend would say so, never looking like this success).
    expect(await page.getByTestId('end-reason').textContent()).toBe('done: the agent signalled completion');
    await page.context().close();
  });

  it('rolls a finished run back to a checkpoint after a confirmation', async () => {
    const page = await openPage(browser, `${serve.url}/runs/${runs.quick.id}?tab=checkpoints`);
    const list = page.getByTestId('checkpoints');
    await list.waitFor();
    expect(readFileSync(join(runs.quick.dir, '.plan-agent-count'), 'utf8')).toBe('2');
    // The newest checkpoint is what the workspace holds: no rollback offered there; every row says when.
    expect(await list.locator('li').first().getByRole('button', { name: 'Roll back here' }).count()).toBe(0);
    expect(await list.locator('li').first().textContent()).toMatch(/^iteration 2 · [0-9a-f]{10} · committed · \d\d:\d\d:\d\dcurrent$/);
    await list.locator('li').filter({ hasText: /^iteration 1 · / }).getByRole('button', { name: 'Roll back here' }).click();
    const confirm = page.getByTestId('confirm');
    expect(await confirm.getByRole('heading').textContent()).toBe('Roll back to iteration 1?');
    await confirm.getByRole('button', { name: 'Roll back' }).click();
    await page.getByRole('status').filter({ hasText: 'Workspace restored to iteration 1.' }).waitFor();
    expect(readFileSync(join(runs.quick.dir, '.plan-agent-count'), 'utf8')).toBe('1');
    // The rollback's own commit is named as such (not a second 'iteration 1' row) and is now the current one.
    await list.locator('li').filter({ hasText: /^rollback to iteration 1 · [0-9a-f]{10} · rollback/ }).waitFor();
    expect(await list.locator('li').first().textContent()).toMatch(/^rollback to iteration 1 · .*current$/);
    await page.context().close();
  });
});

describe('board', () => {
  it('filters live in the URL and survive a reload; j and Enter open a run from the keyboard', async () => {
    const page = await openPage(browser, serve.url);
    const summary = page.getByTestId('board-summary');
    await summary.waitFor();
    expect(await summary.textContent()).toBe('4 runs');
    await page.keyboard.press('/');
    await page.keyboard.type('readme');
    await page.getByRole('group', { name: 'statuses' }).getByRole('button', { name: 'completed' }).click();
    await page.waitForURL((url) => url.search === '?status=completed&q=readme');
    expect(await summary.textContent()).toBe('1 of 4 runs');
    await page.reload();
    await summary.waitFor();
    expect(await summary.textContent()).toBe('1 of 4 runs');
    expect(await page.getByRole('searchbox', { name: 'search runs' }).inputValue()).toBe('readme');
    await page.locator('body').click({ position: { x: 5, y: 300 } });
    await page.keyboard.press('j');
    expect(await page.locator('[data-testid="run-card"][aria-current="true"]').getAttribute('data-run-id')).toBe(runs.quick.id);
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/runs/${runs.quick.id}$`));
    await page.context().close();
  });

  it('every column in view from 1280 px on, empty ones narrow; a status filter shows only its columns', async () => {
    for (const width of [1280, 1440, 1920]) {
      const page = await openPage(browser, serve.url, { width, height: 900 });
      await page.getByTestId('board-summary').waitFor();
      const boxes = await page.locator('section.column').evaluateAll((sections) => sections.map((s) => s.getBoundingClientRect().right));
      expect(boxes).toHaveLength(7);
      expect(Math.max(...boxes), `at ${width} px`).toBeLessThanOrEqual(width);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(width);
      if (width === 1440) await screenshot(page, 'board-1440');
      await page.context().close();
    }
    const page = await openPage(browser, `${serve.url}/?status=stopped,failed`, { width: 1440 });
    await page.getByTestId('board-summary').waitFor();
    expect(await page.locator('section.column').evaluateAll((sections) => sections.map((s) => s.getAttribute('data-testid')))).toEqual(['column-stopped', 'column-failed']);
    await page.context().close();
  });

  it('phone width: no sideways page scroll, one column per screen; the dark theme from the keyboard', async () => {
    const page = await openPage(browser, serve.url, { width: 390, height: 844 });
    await page.getByTestId('board-summary').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
    expect((await page.getByTestId('column-running').boundingBox())?.width).toBeGreaterThan(340);
    // The other columns are named, with their counts, and one tap away.
    const tabs = page.getByTestId('column-tabs');
    expect(await tabs.isVisible()).toBe(true);
    // flood is done by now (the first test opened its gate), claude still runs.
    expect(await tabs.getByRole('button').allTextContents()).toEqual(['running 1', 'completed 3']);
    await tabs.getByRole('button', { name: 'completed 3' }).click();
    await until('the completed column in view', async () => {
      const box = await page.getByTestId('column-completed').boundingBox();
      return box !== null && box.x >= 0 && box.x < 40 ? true : null;
    });
    await screenshot(page, 'board-phone');
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('t');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await page.goto(`${serve.url}/runs/${runs.claude.id}`);
    await page.getByTestId('output-tool').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
    // The controls fold under the run's one-line summary on a phone.
    await page.getByTestId('run-more').locator('summary').click();
    expect(await page.getByTestId('controls').getByRole('button', { name: 'Stop' }).isVisible()).toBe(true);
    await screenshot(page, 'run-phone-dark');
    await page.context().close();
  });
});
