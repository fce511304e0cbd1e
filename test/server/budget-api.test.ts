// GET and PUT /api/budget of a real server in this process: behind the token, a body checked by its schema
// (400 with the field), the change stored (the CLI's store sees it) and the report's shape; the route is in the
// OpenAPI document.
import { afterEach, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';

let t: TestServer | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});

it('answers GET and PUT /api/budget with the token only, refuses a bad body, stores the change', async () => {
  t = await startTestServer();
  const s = t;
  expect((await s.request('/api/budget', { anonymous: true })).status).toBe(401);
  expect((await s.request('/api/budget', { method: 'PUT', body: { daily_usd: 5 }, anonymous: true })).status).toBe(401);
  expect(await s.store.getBudget()).toEqual({ daily_usd: null, monthly_usd: null, updated_at: null });

  const empty = await s.request('/api/budget');
  expect(empty.status).toBe(200);
  expect(empty.body).toMatchObject({ daily: { limit_usd: null, spent_usd: 0, reached: false }, monthly: { limit_usd: null }, by_agent: [], by_run: [], unpriced: [], reached: null });

  for (const [body, message] of [
    [{ daily_usd: -1 }, 'daily_usd: Too small: expected number to be >=0'],
    [{ daily_usd: '5' }, 'daily_usd: Invalid input: expected number, received string'],
    [{ weekly_usd: 5 }, 'Unrecognized key: "weekly_usd"'],
    [{}, 'give daily_usd and/or monthly_usd (null clears one)'],
  ] as const) {
    const bad = await s.request('/api/budget', { method: 'PUT', body });
    expect([bad.status, bad.body]).toEqual([400, { error: { code: 'invalid_request', message } }]);
  }

  const put = await s.request('/api/budget', { method: 'PUT', body: { daily_usd: 5, monthly_usd: 100 } });
  expect(put.status, put.text).toBe(200);
  expect(put.body).toMatchObject({ daily: { limit_usd: 5, spent_usd: 0, projected_usd: 0, reached: false }, monthly: { limit_usd: 100 } });
  const cleared = await s.request('/api/budget', { method: 'PUT', body: { daily_usd: null } });
  expect(cleared.body).toMatchObject({ daily: { limit_usd: null }, monthly: { limit_usd: 100 } });
  expect(await s.store.getBudget()).toMatchObject({ daily_usd: null, monthly_usd: 100 });

  const doc = (await s.request('/api/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
  expect(Object.keys(doc.paths['/api/budget'] ?? {}).sort()).toEqual(['get', 'put']);
});
