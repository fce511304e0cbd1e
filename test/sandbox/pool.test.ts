// A sandboxed iteration in a helper process of the iteration pool (how `ringmaster serve` and workers run agents):
// the policy crosses to the helper as plain data, the agent is confined there as in the server's process, and the
// connection its sandbox refused comes back with the result. Uses the built dist/ (the worker entry is JavaScript).
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type * as PoolModule from '../../src/runner/iteration-pool.js';
import type * as RegistryModule from '../../src/agents/registry.js';
import { NO_BWRAP, SKIP_REASON, useHostPort } from '../helpers/sandbox.js';
import { ROOT } from '../helpers/cli.js';
import { useScratch } from '../helpers/scratch.js';

const dist = (path: string): string => join(ROOT, 'dist', path);
const { IterationPool } = (await import(dist('runner/iteration-pool.js'))) as typeof PoolModule;
const { getAdapter } = (await import(dist('agents/registry.js'))) as typeof RegistryModule;
const AGENT = join(ROOT, 'test', 'fixtures', 'agents', 'escape-agent.mjs');
const scratch = useScratch();
const pool = new IterationPool(1);
const host = useHostPort();

// Until its helper is ready a pool runs iterations in this process: this test is about the helper.
beforeAll(() => pool.started());
afterAll(async () => {
  await pool.close();
});

it.skipIf(NO_BWRAP)(`an iteration in a helper process runs in its sandbox; the refused connection comes back with the result${SKIP_REASON}`, { timeout: 60_000 }, async () => {
  const ws = scratch.temp('ringmaster-sandbox-pool-');
  const data = scratch.temp('ringmaster-sandbox-pool-data-');
  mkdirSync(join(data, 'runs', 'r1'), { recursive: true });
  const command = [process.execPath, AGENT, String(host.port), `ringmaster-pool-${process.pid}`];
  const outcome = await pool.run({
    adapter: getAdapter({ name: 'command', command }),
    agentSpec: { name: 'command', command },
    prompt: 'escape',
    cwd: ws,
    logPath: join(data, 'runs', 'r1', 'iteration-1.log'),
    model: null,
    extraArgs: [],
    permissionMode: 'bypass',
    resumeSessionId: null,
    resumeCostBaseline: 0,
    env: { ...process.env, RINGMASTER_HOME: data },
    successSignals: ['<promise>COMPLETE</promise>'],
    failureSignal: '<promise>FAILURE</promise>',
    idleTimeoutMs: null,
    hardTimeoutMs: null,
    deadlineMs: null,
    killGraceMs: 500,
    prices: {},
    signal: new AbortController().signal,
    onActivity: null,
    sandbox: { policy: { network: 'agent', hide: [], allowWrite: [], allowHosts: [], memoryBytes: null, pids: null }, dataDir: data, readable: [] },
  });
  await outcome.logClosed;
  expect(outcome.result).toMatchObject({ exitCode: 0, successSignal: false, errorKind: 'none' });
  expect(outcome.blocked).toEqual([{ host: '127.0.0.1', port: host.port }]);
  const log = readFileSync(join(data, 'runs', 'r1', 'iteration-1.log'), 'utf8');
  expect(log).toContain('write /etc/x: blocked EROFS\n');
  expect(log).toContain('read the database: blocked ENOENT\n');
  expect(readFileSync(join(ws, 'result.txt'), 'utf8')).toBe('written in the workspace\n');
});
