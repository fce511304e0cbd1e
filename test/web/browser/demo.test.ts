// `ringmaster serve --demo`: a live dashboard in seconds, no agent CLI or API key: five scripted loops in
// temporary workspaces that end up running, paused, waiting on a usage limit (with its countdown), failed and
// completed; all of it removed when the server stops. With RINGMASTER_DOCS_SCREENSHOTS=1 (and the demo's own
// pace) it also writes the README's screenshots into docs/images.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openPage, ROOT, screenshot, ServeProcess, until } from './harness.js';

const DOCS = process.env.RINGMASTER_DOCS_SCREENSHOTS === '1' ? join(ROOT, 'docs', 'images') : null;

let serve: ServeProcess;
let browser: Browser;

beforeAll(async () => {
  [serve, browser] = await Promise.all([ServeProcess.start({ args: ['--demo'], env: DOCS === null ? { RINGMASTER_SCRIPTED_DELAY_MS: '200' } : {} }), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

/** Saves a screenshot as a test artifact, and into docs/images when asked to. */
async function shot(page: Page, name: string): Promise<void> {
  await screenshot(page, `demo-${name}`);
  if (DOCS === null) return;
  mkdirSync(DOCS, { recursive: true });
  await screenshot(page, name, join(DOCS, `dashboard-${name}.png`));
}

const column = (page: Page, status: string) => page.getByTestId(`column-${status}`);

describe('ringmaster serve --demo', () => {
  it('shows five scripted loops live: running, paused after an iteration, waiting on a usage limit, failed, completed', async () => {
    const dir = await until('the demo to start', () => /demo: 5 scripted loops in temporary workspaces under (\S+) \(removed when the server stops\)/.exec(serve.stdout)?.[1] ?? null);
    expect(existsSync(join(dir, 'workspaces', 'docs-site', 'TODO.md'))).toBe(true);
    const page = await openPage(browser, serve.url);
    await page.getByTestId('board-summary').filter({ hasText: /^5 runs$/ }).waitFor();
    const paused = column(page, 'paused').getByTestId('run-card');
    await paused.filter({ hasText: 'Refactor the core module' }).filter({ hasText: 'iteration 1/10' }).waitFor();
    await column(page, 'waiting').getByTestId('countdown').filter({ hasText: /^resets in \d+s$/ }).waitFor();
    await column(page, 'failed').getByTestId('run-card').filter({ hasText: 'failed: too many failures in a row' }).waitFor();
    await column(page, 'completed').getByTestId('run-card').filter({ hasText: 'Build the todo app' }).waitFor({ timeout: 60_000 });
    await shot(page, 'board');

    // The docs site spends against a budget: still running, or already stopped by it on a busy machine.
    await page.getByTestId('run-card').filter({ hasText: 'Build the documentation site' }).click();
    await page.getByTestId('output-tool').filter({ hasText: /^Write / }).first().waitFor();
    expect(await page.getByTestId('output-text').first().locator('h2').textContent()).toBe('Next task');
    await page.getByTestId('output-tool').filter({ hasText: /^Bash npm test/ }).first().locator('summary').click();
    await shot(page, 'run');
    await page.getByRole('tab', { name: 'cost' }).click();
    await page.getByTestId('projection').filter({ hasText: /^Spent \$0\.\d+ of \$0\.6000\. About \$0\.0700 and / }).waitFor();
    await shot(page, 'cost');
    await page.context().close();

    // The same run in the dark theme on a desktop (an artifact to look at), and on a phone.
    const dark = await openPage(browser, serve.url, { dark: true });
    await dark.getByTestId('run-card').filter({ hasText: 'Build the documentation site' }).click();
    await dark.getByTestId('output-tool').filter({ hasText: /^Write / }).first().waitFor();
    await screenshot(dark, 'demo-run-dark');
    await dark.context().close();

    const phone = await openPage(browser, serve.url, { width: 390, height: 844, dark: true });
    await phone.getByTestId('board-summary').waitFor();
    await shot(phone, 'phone');
    await phone.getByTestId('run-card').filter({ hasText: 'Build the documentation site' }).first().click();
    await phone.getByTestId('output-tool').filter({ hasText: /^Write / }).first().waitFor();
    await phone.getByText('loading earlier output…').waitFor({ state: 'detached' });
    await shot(phone, 'run-phone');
    await phone.context().close();

    await serve.kill('SIGTERM');
    expect(existsSync(dir)).toBe(false);
  });
});
