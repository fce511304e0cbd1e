// End-to-end: the real Codex CLI inside the sandbox (`ringmaster run --sandbox`) against the fake Responses API on the
// host's loopback. Its base URL is in $CODEX_HOME/config.toml, not in the environment, so the run names the endpoint
// in sandbox.allow_hosts (bridged into the sandbox). Its shell tool writes in the workspace and cannot write outside.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { codexFakeEnv, startFakeResponses, writeCodexHome, type FakeResponsesServer } from '../fakes/openai-responses-server.js';
import { NO_BWRAP, SKIP_REASON } from '../helpers/sandbox.js';
import { runCli } from '../helpers/cli.js';
import { agentEnv, completedIterations, createSandbox, runArgs, runEvents, type Sandbox } from './real-cli.js';

let dirs: Sandbox;
let server: FakeResponsesServer | null = null;
const outside = `/etc/ringmaster-sandbox-codex-${process.pid}`;

beforeEach(() => {
  dirs = createSandbox('codex-sandbox');
});
afterEach(async () => {
  await server?.close();
  server = null;
  dirs.cleanup();
  rmSync(outside, { force: true });
});

it.skipIf(NO_BWRAP)(`codex in the sandbox: its shell writes in the workspace, not outside; cost and session recorded${SKIP_REASON}`, { timeout: 180_000 }, async () => {
  server = await startFakeResponses({
    conversations: [
      [
        { type: 'function_call', name: 'exec_command', arguments: { cmd: `printf 'escaped\\n' > ${outside}; printf 'hello from codex\\n' > hello.txt` }, usage: { input_tokens: 1000, output_tokens: 40 } },
        { type: 'text', text: 'Done. <promise>COMPLETE</promise>', usage: { input_tokens: 1100, output_tokens: 12 } },
      ],
    ],
  });
  const codexHome = await writeCodexHome(join(dirs.home, '.codex'), server.url);
  const env = agentEnv(dirs.home, { ...codexFakeEnv(codexHome), RINGMASTER_SANDBOX_ALLOW_HOSTS: new URL(server.url).host });
  const r = await runCli([...runArgs('codex', null), '--sandbox'], { cwd: dirs.repo, env });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(existsSync(outside)).toBe(false);
  expect(readFileSync(join(dirs.repo, 'hello.txt'), 'utf8')).toBe('hello from codex\n');
  // The shell's answer, as Codex sent it back to the model (its own sandbox is off: --dangerously-bypass-...).
  expect(JSON.stringify(server.mainRequests()[1]?.body)).toContain('Read-only file system');
  const done = completedIterations(runEvents(r.stdout));
  expect(done.map((e) => [e.iteration, e.outcome, e.error_kind])).toEqual([[1, 'complete', 'none']]);
  expect(done[0]?.cost_usd).toBeGreaterThan(0);
  expect(done[0]?.session_id).not.toBe(null);
});
