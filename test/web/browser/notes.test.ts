// The run page's note box against a real `ringmaster serve`: a note sent from the page is listed as pending, one
// withdrawn disappears, and the one left reaches the prompt of the next iteration once, where the output shows it
// (a marked block under that iteration's header, not in the agent's output).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { planAgent } from '../../helpers/cli.js';
import { openPage, until, useServeAndBrowser } from './harness.js';

const t = useServeAndBrowser();

it('sends a note from the run page, withdraws another, and the first reaches iteration 2, shown there in the output', async () => {
  const dir = t.serve.workspace();
  const id = (await t.serve.api<{ id: string }>('/api/runs', { cooldown: 0, checkpoint_interval: 0, prompt: 'Make the tests pass', workspace: dir, agent_command: planAgent('gate,complete') })).id;
  await until('iteration 1', () => (existsSync(join(dir, '.plan-agent-prompt-1')) ? true : null));
  const page = await openPage(t.browser, `${t.serve.url}/runs/${id}`);
  const box = page.getByTestId('note-box');
  await box.getByLabel('Note for the next iteration').fill('Prefer small commits.');
  await box.getByRole('button', { name: 'Send note' }).click();
  await box.getByTestId('pending-note').filter({ hasText: 'Prefer small commits.' }).waitFor();
  await box.getByLabel('Note for the next iteration').fill('Ignore this one.');
  await box.getByRole('button', { name: 'Send note' }).click();
  const second = box.getByTestId('pending-note').filter({ hasText: 'Ignore this one.' });
  await second.getByRole('button', { name: 'Withdraw' }).click();
  await second.waitFor({ state: 'detached' });
  expect(await box.getByTestId('pending-note').allTextContents()).toEqual(['Prefer small commits.Withdraw']);

  writeFileSync(join(dir, '.gate-1'), '');
  // The agent creates its prompt file, then writes it: read once the whole prompt is there.
  const prompt = await until('iteration 2', () => {
    const file = join(dir, '.plan-agent-prompt-2');
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    return text.includes('Make the tests pass') ? text : null;
  });
  expect(prompt.split('Prefer small commits.').length - 1).toBe(1);
  expect(prompt).not.toContain('Ignore this one.');
  await box.getByTestId('pending-note').first().waitFor({ state: 'detached' });
  const delivered = page.getByTestId('output-note');
  await delivered.waitFor();
  expect(await delivered.count()).toBe(1);
  expect(await delivered.locator('.note-text').textContent()).toBe('Prefer small commits.');
  // Under iteration 2's header: the row that holds it starts with that header.
  const row = page.getByTestId('output-scroll').locator('.output-row').filter({ has: delivered });
  expect(await row.getByTestId('output-iteration').textContent()).toMatch(/^Iteration 2 ·/);
  expect(await page.getByTestId('output-text').filter({ hasText: 'Prefer small commits.' }).count()).toBe(0);
  expect(await page.getByTestId('output-line').filter({ hasText: 'Prefer small commits.' }).count()).toBe(0);
  await page.context().close();
});
