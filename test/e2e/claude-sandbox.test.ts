// End-to-end: the real Claude Code CLI inside the sandbox (`ringmaster run --sandbox`) against the fake Anthropic
// API on the host's loopback (reached through the sandbox's bridge): a Bash tool call that writes outside the
// workspace fails (read-only file system), the Write tool's file in the workspace is there, and the run completes
// with cost and session recorded.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { claudeFakeEnv, messageText, startFakeAnthropic, type FakeAnthropicServer } from '../fakes/anthropic-server.js';
import { NO_BWRAP, SKIP_REASON } from '../helpers/sandbox.js';
import { runCli } from '../helpers/cli.js';
import { agentEnv, completedIterations, createSandbox, runArgs, runEvents, type Sandbox } from './real-cli.js';

let dirs: Sandbox;
let server: FakeAnthropicServer | null = null;
const outside = `/etc/ringmaster-sandbox-e2e-${process.pid}`;

let home: string;

beforeEach(() => {
  dirs = createSandbox('claude-sandbox');
  // A HOME outside /tmp (private in the sandbox), as a user's is: read-only but for Claude Code's own state.
  mkdirSync(join(homedir(), '.cache'), { recursive: true });
  home = mkdtempSync(join(homedir(), '.cache', 'ringmaster-e2e-home-'));
});
afterEach(async () => {
  await server?.close();
  server = null;
  dirs.cleanup();
  rmSync(home, { recursive: true, force: true });
  rmSync(outside, { force: true });
});

it.skipIf(NO_BWRAP)(`claude in the sandbox: Bash cannot write outside the workspace, Write can inside, cost and session recorded${SKIP_REASON}`, { timeout: 180_000 }, async () => {
  server = await startFakeAnthropic({
    conversations: [
      [
        { type: 'tool_use', name: 'Bash', input: { command: `echo escaped > ${outside}`, description: 'write outside' }, usage: { input_tokens: 1000, output_tokens: 30 } },
        (ctx) => ({ type: 'tool_use', name: 'Write', input: { file_path: join(ctx.cwd ?? dirs.repo, 'hello.txt'), content: 'hello from the sandbox\n' }, usage: { input_tokens: 1100, output_tokens: 40 } }),
        { type: 'text', text: 'Done. <promise>COMPLETE</promise>', usage: { input_tokens: 1200, output_tokens: 12 } },
      ],
    ],
  });
  // No CLAUDE_CONFIG_DIR: Claude Code keeps ~/.claude and ~/.claude.json, as for a user.
  const { CLAUDE_CONFIG_DIR: _dir, ...fake } = claudeFakeEnv(server.url, join(home, '.claude'));
  const env = agentEnv(home, { ...fake, CLAUDE_CODE_MAX_RETRIES: '0' });
  const r = await runCli([...runArgs('claude', null), '--sandbox'], { cwd: dirs.repo, env });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(existsSync(outside)).toBe(false);
  expect(readFileSync(join(dirs.repo, 'hello.txt'), 'utf8')).toBe('hello from the sandbox\n');
  // What Bash answered, as Claude Code sent it back to the model.
  const afterBash = server.mainRequests()[1]?.body?.messages?.at(-1)?.content;
  expect(messageText(afterBash)).toContain('Read-only file system');
  const all = runEvents(r.stdout);
  const done = completedIterations(all);
  expect(done.map((e) => [e.iteration, e.outcome, e.error_kind])).toEqual([[1, 'complete', 'none']]);
  expect(done[0]?.cost_usd).toBeGreaterThan(0);
  expect(done[0]?.session_id).toMatch(/^[0-9a-f-]{36}$/);
  expect(all.filter((e) => e.type === 'sandbox_blocked')).toEqual([]);
  // Its state directory was made for it and written by it (the session's transcript), the rest of HOME left alone.
  expect(existsSync(join(home, '.claude', 'projects'))).toBe(true);
});
