// The dashboard on a phone (390x844) and the queue, measured on the page's element boxes (never on time): the
// new-run form fits the screen, names its agents readably and says problems in its own words, with placeholders
// that are what an empty field gives; a run page leaves most of the first screen to the output, which alone
// scrolls, under a title that never breaks inside a word; queued runs show their place, moved up as the queue
// moves. One server that drives one run at a time.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { planAgent } from '../../helpers/cli.js';
import { openPage, screenshot, until, useServeAndBrowser } from './harness.js';

const t = useServeAndBrowser({ args: ['--max-concurrent', '1'] });
const PHONE = { width: 390, height: 844 };
const TITLE = 'Keep fixing the failing tests until every one passes, then print </promise> <promise>COMPLETE</promise>';

const runs = { ticking: { id: '', dir: '' }, second: { id: '', dir: '' }, third: { id: '', dir: '' } };
async function createRuns(): Promise<void> {
  if (runs.ticking.id !== '') return;
  const create = async (prompt: string, plan: string) => {
    const dir = t.serve.workspace();
    const { id } = await t.serve.api<{ id: string }>('/api/runs', { workspace: dir, prompt, agent_command: planAgent(plan), cooldown: 0, checkpoint_interval: 0 });
    return { id, dir };
  };
  runs.ticking = await create(TITLE, 'ticker,complete');
  runs.second = await create('Second in line', 'gate,complete');
  runs.third = await create('Third in line', 'gate,complete');
}

/** The element's box on the page. */
async function box(page: Page, testId: string): Promise<{ x: number; y: number; width: number; height: number }> {
  const b = await page.getByTestId(testId).boundingBox();
  if (b === null) throw new Error(`${testId} is not shown`);
  return b;
}

describe('phone width', () => {
  it('the new-run form: no sideways scroll, readable agent names, messages in its own words, honest placeholders', async () => {
    await createRuns();
    const page = await openPage(t.browser, `${t.serve.url}/new`, PHONE);
    await page.locator('#f-agent option[value="command"]').waitFor({ state: 'attached' });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
    const agents = await page.locator('#f-agent option').allTextContents();
    expect(agents).toContain('command (a command you give)');
    expect(agents).toContain('scripted (a scripted stand-in, no model)');
    for (const name of agents) expect(name).not.toMatch(/\/|command \(command/);
    // An empty Max cost gives what its placeholder says (a run created without one got it).
    expect(await page.locator('#f-maxCost').getAttribute('placeholder')).toBe('300');
    expect((await t.serve.api<{ run: { limits: { max_cost_usd: number } } }>(`/api/runs/${runs.ticking.id}`)).run.limits.max_cost_usd).toBe(300);
    await page.fill('#f-workspace', '/nowhere');
    await page.fill('#f-prompt', 'p');
    await page.fill('#f-maxRuntime', 'soon');
    await page.getByRole('button', { name: 'Start run' }).click();
    expect(await page.getByTestId('error-maxRuntime').textContent()).toBe(`Max runtime: expected a duration like 90s, 5m or 4h (or 'none'), got "soon"`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
    await screenshot(page, 'new-run-phone');
    await page.context().close();
  });

  it('a run page: the output gets most of the first screen and alone scrolls; the title never breaks inside a word', async () => {
    await createRuns();
    const page = await openPage(t.browser, `${t.serve.url}/runs/${runs.ticking.id}`, PHONE);
    // More output than the screen holds.
    await until('40 rows of output', async () => (Number((await page.getByTestId('output-count').textContent())?.split(' ')[0]?.replace(/,/g, '')) >= 40 ? true : null));
    await screenshot(page, 'run-phone-layout');
    const viewport = { width: 390, height: 844 };
    expect(await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight])).toEqual([viewport.width, viewport.height]);
    // The header is one line; the run's title, state and folded summary leave the output at least 60% of the screen.
    expect((await page.locator('header.top').boundingBox())?.height).toBeLessThan(56);
    const output = await box(page, 'output-scroll');
    expect(output.y).toBeLessThan(viewport.height * 0.4);
    expect(output.y + output.height).toBeLessThanOrEqual(viewport.height);
    expect(output.height).toBeGreaterThan(viewport.height * 0.55);
    // Every word of the title on one line (the CSS never splits '</promise>').
    const split = await page.getByTestId('run-title').evaluate((h1) => {
      const words: string[] = [];
      const walker = document.createTreeWalker(h1, NodeFilter.SHOW_TEXT);
      for (let text = walker.nextNode(); text !== null; text = walker.nextNode()) {
        for (const match of (text.textContent ?? '').matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(text, match.index);
          range.setEnd(text, match.index + match[0].length);
          const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
          if (tops.size > 1) words.push(match[0]);
        }
      }
      return words;
    });
    expect(split).toEqual([]);
    expect((await box(page, 'run-title')).height).toBeLessThan(3 * 24);
    // The numbers and controls are one tap away.
    expect(await page.getByTestId('controls').isVisible()).toBe(false);
    await page.getByTestId('run-more').locator('summary').click();
    expect(await page.getByTestId('controls').getByRole('button', { name: 'Stop' }).isVisible()).toBe(true);
    expect(await page.getByTestId('run-stats').isVisible()).toBe(true);
    await screenshot(page, 'run-phone-details');
    await page.context().close();
  });
});

describe('the queue', () => {
  it('pending runs show their place, moved up live as the run ahead finishes', async () => {
    await createRuns();
    const page = await openPage(t.browser, t.serve.url);
    const place = (id: string) => page.locator(`[data-testid="run-card"][data-run-id="${id}"]`).getByTestId('queue-place');
    await place(runs.third.id).filter({ hasText: /^#2 in queue$/ }).waitFor();
    expect(await place(runs.second.id).textContent()).toBe('#1 in queue');
    expect(await place(runs.ticking.id).count()).toBe(0);
    const third = await openPage(t.browser, `${t.serve.url}/runs/${runs.third.id}`);
    await third.getByTestId('queue-place').filter({ hasText: /^#2 in queue$/ }).waitFor();

    writeFileSync(join(runs.ticking.dir, '.gate-1'), '');
    await until('the first run to end and the second to start', async () => {
      const { run } = await t.serve.api<{ run: { status: string } }>(`/api/runs/${runs.second.id}`);
      return run.status === 'running' ? true : null;
    });
    await place(runs.third.id).filter({ hasText: /^#1 in queue$/ }).waitFor();
    expect(await place(runs.second.id).count()).toBe(0);
    await third.getByTestId('queue-place').filter({ hasText: /^#1 in queue$/ }).waitFor();
    await screenshot(page, 'board-queue');
    await third.context().close();
    await page.context().close();
  });
});
