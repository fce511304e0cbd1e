// GET /api/runs/:id/activity answers a page (at most 1 MiB of log) at a time: a 2.5 MiB log of a plain-text agent
// comes back in three bounded pages that join into the whole log, with multi-byte characters never split; a
// structured agent's log pages on line boundaries, numbered on from page to page. GET /api/runs/:id/search says which
// iterations' output contains a text (only those before `before` when asked), with the token only.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startTestServer, until, useRepos, type TestServer } from './harness.js';

let t: TestServer | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});
const repo = useRepos();
const bins: string[] = [];
afterAll(() => {
  for (const dir of bins) rmSync(dir, { recursive: true, force: true });
});

interface Page { activity: Array<{ kind: string; text?: string; offset?: number; index?: number }>; truncated: boolean; next_offset: number; next_index: number }

async function finishedRun(s: TestServer, body: Record<string, unknown>): Promise<string> {
  const { id } = (await s.request('/api/runs', { body: { max_iterations: 1, cooldown: 0, checkpoint_interval: 0, ...body } })).body as { id: string };
  await until('the run to end', async () => (((await s.request(`/api/runs/${id}`)).body as { run: { status: string } }).run.status.match(/^(running|pending|pausing|stopping)$/) ? null : true));
  return id;
}

async function pages(s: TestServer, id: string): Promise<Array<{ page: Page; bytes: number }>> {
  const out: Array<{ page: Page; bytes: number }> = [];
  let offset = 0;
  let index = 0;
  for (;;) {
    const r = await s.request(`/api/runs/${id}/activity?iteration=1&offset=${offset}&index=${index}`);
    const page = r.body as Page;
    out.push({ page, bytes: Buffer.byteLength(r.text) });
    if (!page.truncated) return out;
    expect(page.next_offset).toBeGreaterThan(offset);
    ({ next_offset: offset, next_index: index } = page);
  }
}

describe('GET /api/runs/:id/activity', () => {
  it('pages a 2.5 MiB plain-text log: bounded answers that join into the whole log', async () => {
    t = await startTestServer();
    const dir = repo();
    const script = join(dir, 'flood.js');
    // Lines of 'é' (2 bytes each) so that a page cut could split a character.
    writeFileSync(script, "for (let i = 0; i < 2500; i++) process.stdout.write('é'.repeat(523) + '\\n');\n");
    const id = await finishedRun(t, { workspace: dir, prompt: 'p', agent_command: [process.execPath, script] });
    const all = await pages(t, id);
    expect(all.length).toBe(3);
    for (const { bytes } of all) expect(bytes).toBeLessThan(1.5 * 1024 * 1024);
    const text = all.flatMap(({ page }) => page.activity.map((a) => a.text ?? '')).join('');
    expect(text).toBe(`${'é'.repeat(523)}\n`.repeat(2500));
  });

  it('pages a structured log on line boundaries, numbering on from page to page', async () => {
    // A fake `claude` first on the server's PATH: 3,000 assistant text messages of ~700 bytes (2 MiB).
    const bin = mkdtempSync(join(tmpdir(), 'ringmaster-fake-claude-'));
    bins.push(bin);
    const line = (i: number) => JSON.stringify({ type: 'assistant', message: { id: `m${i}`, role: 'assistant', content: [{ type: 'text', text: `message ${i} ${'z'.repeat(640)}` }] } });
    writeFileSync(
      join(bin, 'claude'),
      `#!${process.execPath}\nconst line = ${line.toString()};\nfor (let i = 0; i < 3000; i++) process.stdout.write(line(i) + '\\n');\nprocess.stdout.write(JSON.stringify({ type: 'result', subtype: 'success', result: 'done', total_cost_usd: 0.01 }) + '\\n');\n`,
      { mode: 0o755 },
    );
    t = await startTestServer({ env: { PATH: `${bin}:${process.env.PATH ?? ''}` } });
    const id = await finishedRun(t, { workspace: repo(), prompt: 'p', agent: 'claude' });
    const all = await pages(t, id);
    expect(all.length).toBeGreaterThan(1);
    const texts = all.flatMap(({ page }) => page.activity.filter((a) => a.kind === 'text').map((a) => a.text ?? ''));
    expect(texts.length).toBe(3000);
    expect(texts.map((x) => x.split(' ')[1])).toEqual(Array.from({ length: 3000 }, (_, i) => String(i)));
    const indexes = all.flatMap(({ page }) => page.activity.map((a) => a.index));
    expect(indexes).toEqual(indexes.map((_, i) => i));
  });

  it('search: the iterations whose output contains the text, with their rows; before; a credential', async () => {
    t = await startTestServer();
    const dir = repo();
    const script = join(dir, 'agent.js');
    // Iteration n prints 'iteration n' and 'common'; only iteration 1 prints 'Only-In-One' (twice).
    writeFileSync(
      script,
      "const fs = require('node:fs'); const n = (Number(fs.existsSync('.n') ? fs.readFileSync('.n', 'utf8') : '0') + 1); fs.writeFileSync('.n', String(n));\n" +
        "console.log('iteration ' + n + '\\ncommon'); if (n === 1) console.log('only-in-one here\\nand ONLY-IN-ONE again');\n",
    );
    const id = await finishedRun(t, { workspace: dir, prompt: 'p', agent_command: [process.execPath, script], max_iterations: 3 });
    const search = async (query: string) => (await t!.request(`/api/runs/${id}/search?${query}`)).body;
    expect(await search('q=Only-In-One')).toEqual({ iterations: [{ iteration: 1, matches: 2 }], truncated: false });
    expect(await search('q=common')).toEqual({ iterations: [1, 2, 3].map((iteration) => ({ iteration, matches: 1 })), truncated: false });
    expect(await search('q=common&before=3')).toEqual({ iterations: [1, 2].map((iteration) => ({ iteration, matches: 1 })), truncated: false });
    expect(await search('q=nowhere')).toEqual({ iterations: [], truncated: false });
    expect((await t.request(`/api/runs/${id}/search?q=`)).status).toBe(400);
    const anonymous = await t.request(`/api/runs/${id}/search?q=common`, { anonymous: true });
    expect(anonymous.status).toBe(401);
  });
});
