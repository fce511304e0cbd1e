// The built dashboard in real Chromium: it loads from dist/web, says plainly when it has no server, and
// (component tests on recorded API payloads) renders the board, the run page with 100,000 output lines,
// follow mode, search, the cost projection, phone width and the dark theme. Screenshots go to artifactsDir().
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, serveDashboard, type DashboardServer } from './harness.js';
import { recordedApi, recordedRuns } from './recorded-api.js';

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

async function open(server: DashboardServer, path: string, viewport = { width: 1400, height: 900 }): Promise<Page> {
  const context = await browser.newContext({ viewport, colorScheme: 'light' });
  const page = await context.newPage();
  await page.goto(`${server.url}${path}`);
  return page;
}

describe('dashboard without a server', () => {
  it('loads the built page and says it is disconnected, with when it retries', async () => {
    const server = await serveDashboard();
    try {
      const page = await open(server, '/');
      const banner = page.getByTestId('disconnected');
      await banner.waitFor();
      expect(await banner.textContent()).toMatch(/^Disconnected from the server\. .*retrying in \d+s \(attempt \d+\)\. Reconnect now What you see may be out of date until it reconnects\.$/);
      expect(await page.getByRole('alert').filter({ hasText: 'Cannot load runs' }).textContent()).toBe('Cannot load runs: no /api/runs');
      await screenshot(page, 'disconnected');
      await page.context().close();
    } finally {
      await server.close();
    }
  });
});

describe('dashboard on recorded API payloads', () => {
  const now = Date.now();
  const runs = recordedRuns(500, now);
  let server: DashboardServer;

  beforeAll(async () => {
    server = await serveDashboard(recordedApi(runs, { detailIterations: 8, outputLines: 100_000 }));
  });

  afterAll(async () => {
    await server?.close();
  });

  it('board: a column per status with its count, capacity and today’s spend, countdowns on waiting runs', async () => {
    const page = await open(server, '/');
    await page.getByTestId('board-summary').waitFor();
    expect(await page.getByTestId('board-summary').textContent()).toBe('500 runs');
    const counts: Record<string, string | null> = {};
    for (const status of ['pending', 'running', 'paused', 'waiting', 'completed', 'stopped', 'failed']) {
      counts[status] = await page.getByTestId(`column-${status}`).getByTestId('column-count').textContent();
    }
    // 500 runs round robin over 7 statuses (running, pending, paused first): 72 for those three, 71 for the rest.
    expect(counts).toEqual({ running: '72', pending: '72', paused: '72', waiting: '71', completed: '71', stopped: '71', failed: '71' });
    expect(await page.getByTestId('capacity').textContent()).toBe('active 215 / 5queued 72today $4.25');
    expect(await page.getByTestId('column-waiting').getByTestId('countdown').first().textContent()).toMatch(/^resets in (59m \d\ds|1h 00m 00s)$/);
    await screenshot(page, 'board');
    await page.context().close();
  });

  it('board: filters live in the URL and survive a reload; j / Enter open a run from the keyboard', async () => {
    const page = await open(server, '/');
    await page.getByTestId('board-summary').waitFor();
    await page.keyboard.press('/');
    await page.keyboard.type('project-1');
    await page.getByRole('group', { name: 'statuses' }).getByRole('button', { name: 'failed' }).click();
    await page.waitForURL((url) => url.search === '?status=failed&q=project-1');
    // Runs i with i % 3 == 1 and i % 7 == 6 (failed): i = 13, 34, ..., 496: 24 of the 500.
    expect(await page.getByTestId('board-summary').textContent()).toBe('24 of 500 runs');
    await page.reload();
    await page.getByTestId('board-summary').waitFor();
    expect(await page.getByTestId('board-summary').textContent()).toBe('24 of 500 runs');
    expect(await page.getByRole('searchbox', { name: 'search runs' }).inputValue()).toBe('project-1');
    await page.locator('body').click({ position: { x: 5, y: 300 } });
    await page.keyboard.press('j');
    const selected = page.locator('[data-testid="run-card"][aria-current="true"]');
    // Finished runs are listed most recently ended first.
    expect(await selected.getAttribute('data-run-id')).toBe('run0496');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/runs\/run0496$/);
    await page.context().close();
  });

  it('run page: 100,000 lines follow the end, pause when scrolled up, jump back; markdown, tool rows and ANSI render', async () => {
    const page = await open(server, '/runs/run0000');
    const count = page.getByTestId('output-count');
    await page.waitForFunction(() => document.querySelector('[data-testid="output-count"]')?.textContent?.startsWith('100,003 rows'));
    expect(await count.textContent()).toBe('100,003 rows');
    const lastLine = page.getByTestId('output-line').filter({ hasText: /^line 100000 ok$/ });
    await lastLine.waitFor();
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

    await page.getByRole('button', { name: 'follow live output (f)' }).click();
    await scroller.evaluate((el) => (el.scrollTop = 0));
    const markdown = page.getByTestId('output-text').first();
    await markdown.waitFor();
    expect(await markdown.locator('h2').textContent()).toBe('Plan');
    expect(await markdown.locator('strong').textContent()).toBe('fix');
    const tool = page.getByTestId('output-tool').first();
    expect(await tool.locator('summary').textContent()).toBe('Bash npm test2.5serror');
    await tool.locator('summary').click();
    expect(await tool.locator('.ansi-red').textContent()).toBe('1 failed');
    await screenshot(page, 'run-output');
    await page.context().close();
  });

  it('run page: cost chart with the budget line and where the run ends at this pace', async () => {
    const page = await open(server, '/runs/run0000?tab=cost');
    await page.getByTestId('projection').waitFor();
    // 8 finished iterations at $0.50 of a $10 budget: 12 more reach it (before the 40-iteration limit).
    expect(await page.getByTestId('projection').textContent()).toBe(
      'Spent $4.00 of $10.00. About $0.5000 and 30.0s per iteration lately. At this pace it ends after iteration 20 on its budget, at about $10.00, in about 6m00s.',
    );
    await page.getByTestId('cost-chart').locator('canvas').waitFor();
    expect(await page.locator('.u-legend .u-series').allTextContents()).toEqual(expect.arrayContaining([expect.stringMatching(/^budget/), expect.stringMatching(/^projected/)]));
    await screenshot(page, 'run-cost');
    await page.context().close();
  });

  it('phone width: no sideways page scroll, one column per screen; dark theme from the keyboard', async () => {
    const page = await open(server, '/', { width: 390, height: 844 });
    await page.getByTestId('board-summary').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
    const column = await page.getByTestId('column-pending').boundingBox();
    expect(column?.width).toBeGreaterThan(340);
    await screenshot(page, 'board-phone');
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('t');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await page.goto(`${server.url}/runs/run0001`);
    await page.getByTestId('run-page').waitFor();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
    await screenshot(page, 'run-phone-dark');
    await page.context().close();
  });
});
