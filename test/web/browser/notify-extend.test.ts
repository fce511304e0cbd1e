// Two dashboard features against a real `ringmaster serve`: browser notifications (opt-in) when a run completes
// or fails, and "add N iterations" continuing a run that ended at its iteration limit.
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { planAgent } from '../../helpers/cli.js';
import { openPage, until, useServeAndBrowser } from './harness.js';

const t = useServeAndBrowser();

async function createRun(body: Record<string, unknown>): Promise<string> {
  return (await t.serve.api<{ id: string }>('/api/runs', { cooldown: 0, checkpoint_interval: 0, prompt: 'Make the tests pass', ...body })).id;
}

async function attribute(locator: Locator, name: string, value: string): Promise<void> {
  await locator.and(locator.page().locator(`[${name}="${value}"]`)).waitFor();
}

/** The notifications the page has shown: the browser's own Notification, each construction recorded. */
async function shown(page: Page): Promise<Array<{ title: string; body: string }>> {
  return page.evaluate(() => (window as unknown as { __shown: Array<{ title: string; body: string }> }).__shown);
}

describe('a new server', () => {
  it('an empty board says how to start a run', async () => {
    const page = await openPage(t.browser, t.serve.url);
    const empty = page.getByTestId('empty-board');
    await empty.waitFor();
    expect(await empty.getByRole('link', { name: 'New run' }).getAttribute('href')).toBe('/new');
    await page.context().close();
  });
});

describe('notifications', () => {
  it('after the user opts in, a run that completes and one that fails each show one notification', async () => {
    const page = await openPage(t.browser, t.serve.url, {
      before: async (context) => {
        await context.grantPermissions(['notifications'], { origin: t.serve.url });
        await context.addInitScript(() => {
          const Real = window.Notification;
          const record: Array<{ title: string; body: string }> = [];
          (window as unknown as { __shown: typeof record }).__shown = record;
          class Recorded extends Real {
            constructor(title: string, options?: NotificationOptions) {
              super(title, options);
              record.push({ title, body: options?.body ?? '' });
            }
          }
          window.Notification = Recorded;
        });
      },
    });
    await page.getByRole('button', { name: 'Notify me' }).click();
    await attribute(page.getByRole('button', { name: 'Notifications on' }), 'aria-pressed', 'true');

    const done = await createRun({ workspace: t.serve.workspace(), agent_command: planAgent('complete') });
    const failed = await createRun({ workspace: t.serve.workspace({ 'README.md': 'x\n', 'ringmaster.yml': 'loop:\n  failure_threshold: 1\n' }), agent_command: planAgent('fail') });
    const notes = await until('two notifications', async () => {
      const now = await shown(page);
      return now.length >= 2 ? now : null;
    });
    expect(notes).toHaveLength(2);
    expect(notes).toContainEqual({ title: `Completed: Make the tests pass (${done})`, body: 'stop reason: success_signal' });
    expect(notes).toContainEqual({ title: `Failed: Make the tests pass (${failed})`, body: 'stop reason: failure_threshold' });
    // The failed run's page says what went wrong, not only its iterations tab.
    await page.goto(`${t.serve.url}/runs/${failed}`);
    expect(await page.getByTestId('run-error').textContent()).toMatch(/^Iteration 1 failed \(exit_nonzero\)/);
    await page.context().close();
  });
});

describe('add N iterations', () => {
  it('continues a run that ended at its iteration limit, up to the new limit', async () => {
    const id = await createRun({ workspace: t.serve.workspace(), agent_command: planAgent('ok,ok,complete'), max_iterations: 1 });
    const page = await openPage(t.browser, `${t.serve.url}/runs/${id}`);
    await attribute(page.getByTestId('run-page'), 'data-state', 'completed');
    expect(await page.getByTestId('run-stats').textContent()).toContain('iterations 1 / 1');
    await page.getByLabel('iterations to add').fill('2');
    await page.getByRole('button', { name: 'iterations', exact: true }).click();
    await page.getByText('2 iterations added.').waitFor();
    const run = await until('the run to end again', async () => {
      const { run } = await t.serve.api<{ run: { status: string; stop_reason: string; iterations: number; limits: { max_iterations: number } } }>(`/api/runs/${id}`);
      return run.status === 'completed' && run.iterations === 3 ? run : null;
    });
    expect(run).toMatchObject({ stop_reason: 'success_signal', limits: { max_iterations: 3 } });
    await page.getByTestId('run-stats').filter({ hasText: 'iterations 3 / 3' }).waitFor();
    // The output follows the run back to life without a reload: the added iterations' lines are there.
    await page.getByTestId('output-line').filter({ hasText: 'working on iteration 2' }).waitFor();
    await page.getByTestId('output-line').filter({ hasText: 'all done' }).waitFor();
    await page.context().close();
  });
});
