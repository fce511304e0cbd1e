// The dashboard end to end: a real `ringmaster serve` (the built CLI) with fake agents, driven from headless
// Chromium. A run created from the form reaches completed on its card; pause and resume with no iteration
// started while paused; stop shows "stopping" until the agent's process group is gone; a reload mid-run shows
// every line once; the page reconnects by itself after the server is killed and started again.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { groupMembers } from '../../../src/os/process-group.js';
import { planAgent } from '../../helpers/cli.js';
import { processState } from '../../helpers/proc.js';
import { openPage, screenshot, until, useServeAndBrowser } from './harness.js';

const t = useServeAndBrowser();

interface Event {
  seq: number;
  type: string;
}

const card = (page: Page, id: string): Locator => page.locator(`[data-testid="run-card"][data-run-id="${id}"]`);
const gate = (dir: string, n: number): void => writeFileSync(join(dir, `.gate-${n}`), '');
const count = (dir: string, file = '.plan-agent-count'): number => (existsSync(join(dir, file)) ? Number(readFileSync(join(dir, file), 'utf8')) : 0);
const events = async (id: string): Promise<Event[]> => (await t.serve.api<{ events: Event[] }>(`/api/runs/${id}/events`)).events;


/** Waits until the element's attribute has the value. */
async function attribute(locator: Locator, name: string, value: string): Promise<void> {
  await locator.and(locator.page().locator(`[${name}="${value}"]`)).waitFor();
}

/** The run as the API shows it once it has ended. */
async function settled(id: string): Promise<Record<string, unknown>> {
  return until(`run ${id} to end`, async () => {
    const { run } = await t.serve.api<{ run: Record<string, unknown> }>(`/api/runs/${id}`);
    return ['completed', 'stopped', 'failed'].includes(String(run.status)) ? run : null;
  });
}

async function createRun(body: Record<string, unknown>): Promise<string> {
  return (await t.serve.api<{ id: string }>('/api/runs', { cooldown: 0, checkpoint_interval: 0, prompt: 'Make the tests pass', ...body })).id;
}

describe('runs from the dashboard', () => {
  it("a run created from the form (validated with ringmaster run's parsers, then the server's, each message under its field in the form's words) reaches completed on its card", async () => {
    const dir = t.serve.workspace();
    const page = await openPage(t.browser, `${t.serve.url}/new`);
    await page.locator('#f-agent option[value="command"]').waitFor({ state: 'attached' });
    await page.fill('#f-workspace', `${dir}/nope`);
    await page.fill('#f-prompt', 'Make the tests pass');
    await page.selectOption('#f-agent', 'command');
    await page.fill('#f-agentCommand', planAgent('gate,complete'));
    await page.fill('#f-maxRuntime', '4 hours');
    await page.getByRole('button', { name: 'Start run' }).click();
    expect(await page.getByTestId('error-maxRuntime').textContent()).toBe(`Max runtime: expected a duration like 90s, 5m or 4h (or 'none'), got "4 hours"`);
    await page.fill('#f-maxRuntime', '10m');
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.getByTestId('error-workspace').waitFor();
    expect(await page.getByTestId('error-workspace').textContent()).toBe(`Workspace: not a directory: ${dir}/nope`);
    expect(await page.getByTestId('server-error').count()).toBe(0);

    await page.fill('#f-workspace', dir);
    await page.fill('#f-maxIterations', '5');
    await page.fill('#f-cooldown', '0s');
    await page.fill('#f-checkpointInterval', '1');
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.waitForURL(/\/runs\/[0-9a-z]+$/);
    const id = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
    await page.getByRole('link', { name: '← board' }).click();

    const running = card(page, id);
    await attribute(running, 'data-state', 'running');
    expect(await page.getByTestId('column-running').locator(`[data-run-id="${id}"]`).count()).toBe(1);
    expect(await running.getByTestId('card-line').textContent()).toBe('waiting at gate 1');
    await screenshot(page, 'board-running');
    gate(dir, 1);
    const done = page.getByTestId('column-completed').locator(`[data-run-id="${id}"]`);
    await attribute(done, 'data-state', 'completed');
    expect(await done.textContent()).toContain('iteration 2/5');
    expect(await done.textContent()).toContain('done: the agent signalled completion');
    expect(await settled(id)).toMatchObject({ status: 'completed', limits: { max_iterations: 5, max_runtime_ms: 600_000 } });
    await page.context().close();
  });

  it('pause takes effect after the current iteration ("pausing" until then); no iteration starts while paused; resume goes on', async () => {
    const dir = t.serve.workspace();
    const id = await createRun({ workspace: dir, agent_command: planAgent('gate,gate,complete') });
    const page = await openPage(t.browser, `${t.serve.url}/runs/${id}`);
    const state = page.getByTestId('run-state');
    await attribute(page.getByTestId('run-page'), 'data-state', 'running');
    await until('iteration 1', () => (count(dir) === 1 ? true : null));
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await attribute(page.getByTestId('run-page'), 'data-state', 'pausing');
    expect(await state.textContent()).toBe('pausing');
    gate(dir, 1);
    await attribute(page.getByTestId('run-page'), 'data-state', 'paused');
    expect(await page.getByTestId('frozen').count()).toBe(0); // between iterations: nothing is frozen
    // Paused with nothing in the way (cooldown 0): a while later still no second iteration, on the page or in the workspace.
    // A fixed wait is the only way to show that something does not happen; it asserts nothing about time.
    await new Promise((r) => setTimeout(r, 1500));
    expect(count(dir)).toBe(1);
    expect(await page.getByTestId('run-stats').textContent()).toContain('iterations 1 / 100');
    await page.getByRole('button', { name: 'Resume' }).click();
    await until('iteration 2', () => (count(dir) === 2 ? true : null));
    await attribute(page.getByTestId('run-page'), 'data-state', 'running');
    gate(dir, 2);
    await attribute(page.getByTestId('run-page'), 'data-state', 'completed');
    const types = (await events(id)).map((e) => e.type);
    const paused = types.indexOf('paused');
    const resumed = types.indexOf('resumed');
    expect(paused).toBeGreaterThan(types.indexOf('iteration_completed'));
    expect(resumed).toBeGreaterThan(paused);
    expect(types.slice(paused, resumed).filter((t) => t === 'iteration_started')).toEqual([]);
    expect(types.filter((t) => t === 'iteration_started')).toHaveLength(3);
    await page.context().close();
  });

  it('pause now: the agent is suspended mid-iteration (its process stopped), resume continues the same iteration', async () => {
    const dir = t.serve.workspace();
    const id = await createRun({ workspace: dir, agent_command: planAgent('ticker,complete') });
    const page = await openPage(t.browser, `${t.serve.url}/runs/${id}`);
    await attribute(page.getByTestId('run-page'), 'data-state', 'running');
    const pid = await until('the agent', () => {
      const file = join(dir, '.plan-agent-pids');
      const found = existsSync(file) ? Number(readFileSync(file, 'utf8')) : 0;
      return found > 0 ? found : null;
    });
    await page.getByRole('button', { name: 'Pause now' }).click();
    await attribute(page.getByTestId('run-page'), 'data-state', 'paused');
    // SIGSTOP takes effect when the kernel next schedules the process: its state is looked at until it shows.
    await until('the agent stopped', () => (processState(pid) === 'T' ? true : null));
    // Told apart from a pause between iterations, after a reload too (the server says so).
    await page.getByTestId('frozen').waitFor();
    await page.reload();
    expect(await page.getByTestId('frozen').textContent()).toBe('❄ agent frozen mid-iteration');
    expect(await page.getByTestId('run-stats').textContent()).toContain('iterations 1 / 100');
    await page.getByRole('button', { name: 'Resume' }).click();
    await attribute(page.getByTestId('run-page'), 'data-state', 'running');
    await until('the agent continued', () => (processState(pid) !== 'T' ? true : null));
    expect(await page.getByTestId('frozen').count()).toBe(0);
    gate(dir, 1);
    await attribute(page.getByTestId('run-page'), 'data-state', 'completed');
    const types = (await events(id)).map((e) => e.type);
    expect(types.filter((t) => t === 'iteration_started')).toHaveLength(2);
    expect(types.indexOf('paused')).toBeLessThan(types.indexOf('iteration_completed'));
    await page.context().close();
  });

  it('stop: the card says "stopping" until the agent’s process group is gone (it ignores SIGTERM), then "stopped"', async () => {
    const dir = t.serve.workspace({ 'README.md': 'hello\n', 'ringmaster.yml': 'loop:\n  kill_grace: 2s\n' });
    const id = await createRun({ workspace: dir, agent_command: planAgent('stubborn') });
    const pids = await until('the agent and its child', () => {
      // The file may be seen empty between its creation and its write.
      const found = existsSync(join(dir, '.plan-agent-pids')) ? readFileSync(join(dir, '.plan-agent-pids'), 'utf8').split(' ').map(Number) : [];
      return found.length === 2 && found.every((pid) => pid > 0) ? found : null;
    });
    const [agent] = pids;
    if (agent === undefined) throw new Error('no agent pid');
    const board = await openPage(t.browser, t.serve.url);
    const page = await openPage(t.browser, `${t.serve.url}/runs/${id}`);
    await attribute(page.getByTestId('run-page'), 'data-state', 'running');
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByTestId('confirm').getByRole('button', { name: 'Stop the run' }).click();
    await attribute(card(board, id), 'data-state', 'stopping');
    expect(groupMembers(agent).length).toBeGreaterThan(0);
    await attribute(card(board, id), 'data-state', 'stopped');
    expect(groupMembers(agent)).toEqual([]);
    await attribute(page.getByTestId('run-page'), 'data-state', 'stopped');
    expect(await settled(id)).toMatchObject({ status: 'stopped', stop_reason: 'user_stop', transition: null });
    await Promise.all([board.context().close(), page.context().close()]);
  });
});

describe('the live output', () => {
  /** Every line of the output view (the view is tall enough to render all of them). */
  const lines = (page: Page): Promise<string[]> => page.getByTestId('output-line').allTextContents();

  it('a reload mid-run shows every line of a plain-text agent once: the log read back and the live stream meet at a byte offset', async () => {
    const dir = t.serve.workspace();
    const id = await createRun({ workspace: dir, agent_command: planAgent('ticker'), max_iterations: 1 });
    const page = await openPage(t.browser, `${t.serve.url}/runs/${id}`, { height: 4000 });
    await page.getByTestId('output-line').filter({ hasText: /^tick 1\.5$/ }).waitFor();
    await page.reload();
    await page.getByTestId('output-line').filter({ hasText: /^tick 1\.20$/ }).waitFor();
    gate(dir, 1);
    const last = await page.getByTestId('output-line').filter({ hasText: /^ticked \d+ times$/ }).textContent();
    const ticks = Number(/\d+/.exec(last ?? '')?.[0]);
    expect(await lines(page)).toEqual([...Array.from({ length: ticks }, (_, i) => `tick 1.${i + 1}`), `ticked ${ticks} times`]);
    expect(await page.getByTestId('output-count').textContent()).toBe(`${ticks + 2} rows`);
    await page.context().close();
  });

  it('a reload mid-iteration of a structured agent shows each text and tool call once; the tool call gets its result live', async () => {
    const dir = t.serve.workspace({ 'README.md': 'hello\n', '.claude-plan': 'gate' });
    const id = await createRun({ workspace: dir, agent: 'claude', max_iterations: 1 });
    const page = await openPage(t.browser, `${t.serve.url}/runs/${id}`);
    const tool = page.getByTestId('output-tool');
    await tool.waitFor();
    expect(await tool.locator('.tool-time').textContent()).toBe('running…');
    await page.reload();
    await tool.waitFor();
    gate(dir, 1);
    await page.getByTestId('output-text').filter({ hasText: 'Fixed it in iteration 1.' }).waitFor();
    expect(await page.getByTestId('output-text').allTextContents()).toEqual(['Plan 1\nI will fix the failing test in src/a.ts.', 'Fixed it in iteration 1.']);
    expect(await tool.count()).toBe(1);
    expect(await tool.locator('summary').textContent()).toMatch(/^Bash npm test[\d.]+m?serror$/);
    await page.context().close();
  });
});

describe('connection', () => {
  it('a run page keeps what it showed when a refresh fails, marked not current, and catches up when it can', async () => {
    const dir = t.serve.workspace();
    const id = await createRun({ workspace: dir, agent_command: planAgent('gate,complete') });
    const page = await openPage(t.browser, `${t.serve.url}/runs/${id}`);
    await page.getByTestId('output-line').filter({ hasText: 'waiting at gate 1' }).waitFor();
    // The server cannot be reached for this page's reads (its live link stays): the run's next event asks for a
    // refresh (a pause now), which fails; so do the header's periodic numbers.
    const unreachable = async (route: { abort: () => Promise<void> }) => route.abort();
    const detailUrl = new RegExp(`/api/runs/${id}$`);
    await page.route(detailUrl, unreachable);
    await page.route(/\/api\/stats$/, unreachable);
    await t.serve.api(`/api/runs/${id}/pause?now=true`, {});
    await page.getByTestId('stale').waitFor();
    expect(await page.getByTestId('run-stats').count()).toBe(1);
    expect(await page.getByTestId('controls').count()).toBe(1);
    expect(await page.getByTestId('output-line').filter({ hasText: 'waiting at gate 1' }).count()).toBe(1);
    await page.locator('[data-testid="capacity"][data-stale="true"]').waitFor();
    await screenshot(page, 'run-stale');
    // Reachable again: the next refresh catches up (the run resumed, then its end).
    await page.unroute(detailUrl);
    await page.unroute(/\/api\/stats$/);
    await t.serve.api(`/api/runs/${id}/resume`, {});
    writeFileSync(join(dir, '.gate-1'), '');
    await attribute(page.getByTestId('run-page'), 'data-state', 'completed');
    await page.getByTestId('stale').waitFor({ state: 'detached' });
    await page.locator('[data-testid="capacity"]:not([data-stale])').waitFor();
    await page.context().close();
  });

  it('kill -9 of the server: the page says it is disconnected, reconnects by itself when the server is back, and shows the resumed run to its end', async () => {
    const dir = t.serve.workspace();
    const id = await createRun({ workspace: dir, agent_command: planAgent('gate,complete') });
    const page = await openPage(t.browser, t.serve.url);
    await attribute(card(page, id), 'data-state', 'running');
    expect(await page.getByTestId('disconnected').count()).toBe(0);
    await t.serve.kill('SIGKILL');
    await page.getByTestId('disconnected').waitFor();
    expect(await page.getByTestId('disconnected').textContent()).toMatch(/^Disconnected from the server\. .*; retrying in \d+s \(attempt \d+\)\. Reconnect now What you see may be out of date until it reconnects\.$/);
    await screenshot(page, 'disconnected');
    await t.serve.restart();
    await page.getByTestId('disconnected').waitFor({ state: 'detached' });
    // The restarted server resumes the run: iteration 1 interrupted, iteration 2 completes.
    const done = page.getByTestId('column-completed').locator(`[data-run-id="${id}"]`);
    await attribute(done, 'data-state', 'completed');
    expect(await done.textContent()).toContain('iteration 2/100');
    expect(await page.getByTestId('column-running').locator(`[data-run-id="${id}"]`).count()).toBe(0);
    expect(count(dir)).toBe(2);
    await page.context().close();
  });
});
