// The header's shared budget on a real `ringmaster serve` (README "Budget", docs/dashboard.md): today's spend of
// the daily budget with the projection; the edit control lowers it below the spend, the header says the budget is
// reached and a new run waits (reason budget); clearing it lets that run finish.
import { describe, expect, it } from 'vitest';
import { openPage, screenshot, until, useServeAndBrowser } from './harness.js';

const t = useServeAndBrowser();

/** PUT /api/budget. */
async function putBudget(body: unknown): Promise<void> {
  const response = await fetch(`${t.serve.url}/api/budget`, { method: 'PUT', headers: { authorization: `Bearer ${t.serve.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`PUT /api/budget: ${response.status}`);
}

const runStatus = async (id: string): Promise<string> => (await t.serve.api<{ run: { status: string } }>(`/api/runs/${id}`)).run.status;

describe('header: the shared budget', () => {
  it("shows today's spend of the daily budget, edits it, says when it is reached, and a run waits until it is cleared", async () => {
    await putBudget({ daily_usd: 1 });
    // The fake claude costs $0.50 an iteration.
    const first = await t.serve.api<{ id: string }>('/api/runs', { workspace: t.serve.workspace(), prompt: 'Fix it', agent: 'claude', max_iterations: 1, checkpoint_interval: 0 });
    await until('the first run completed', async () => ((await runStatus(first.id)) === 'completed' ? true : null));
    const page = await openPage(t.browser, t.serve.url);
    const header = page.getByTestId('budget');
    await until('the spend in the header', async () => ((await header.textContent())?.startsWith('today $0.5000 of $1.00') === true ? true : null));
    expect(await header.textContent()).toMatch(/^today \$0\.5000 of \$1\.00 \(→ \$\d+\.\d+\)edit$/);
    expect(await header.getAttribute('class')).toBe('budget');

    page.once('dialog', (dialog) => void dialog.accept('0.40'));
    await header.getByRole('button', { name: 'edit' }).click();
    await until('the budget reached in the header', async () => ((await header.getAttribute('class')) === 'budget reached' ? true : null));
    expect(await header.textContent()).toMatch(/^today \$0\.5000 of \$0\.4000 \(→ \$\d+\.\d+\) budget reached: runs wait until 00:00 UTCedit$/);
    await screenshot(page, 'header-budget-reached');

    const second = await t.serve.api<{ id: string }>('/api/runs', { workspace: t.serve.workspace(), prompt: 'Fix it', agent: 'claude', max_iterations: 1, checkpoint_interval: 0 });
    await until('the second run waiting for the budget', async () => ((await runStatus(second.id)) === 'waiting' ? true : null));
    page.once('dialog', (dialog) => void dialog.accept(''));
    await header.getByRole('button', { name: 'edit' }).click();
    await until('the second run completed', async () => ((await runStatus(second.id)) === 'completed' ? true : null));
    await until('no limit in the header', async () => ((await header.textContent())?.startsWith('today $1.00 (→') === true ? true : null));
    expect(await header.getAttribute('class')).toBe('budget');
    await page.context().close();
  });
});
