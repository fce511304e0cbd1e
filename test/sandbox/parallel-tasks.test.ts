// A parallel task run (tasks.parallelism: 2) with --sandbox: each task's agent works in its own worktree inside its
// own sandbox (the two run at once: each waits for a file the other writes), commits land on the tasks' branches
// through the worktrees' shared git directory, both merge in start order, and the policy is in the run's spec.
import { expect, it } from 'vitest';
import { NO_BWRAP, SKIP_REASON } from '../helpers/sandbox.js';
import { bCompleteAWaiting, expectMergedInOrder, twoTasks } from '../tasks/parallel-harness.js';
import { events, useTaskWorkspaces } from '../tasks/task-run-harness.js';
import type { TaskWorkspace } from '../tasks/task-run-harness.js';

const workspace = useTaskWorkspaces();

it.skipIf(NO_BWRAP)(`two tasks at once, each in its own sandbox and worktree, merged in start order${SKIP_REASON}`, { timeout: 90_000 }, async () => {
  const plain = twoTasks(workspace);
  // The fake agent keeps its script, calls and gates in a directory of its own under /tmp (private in the sandbox).
  const ws: TaskWorkspace = { ...plain, env: (extra = {}) => plain.env({ RINGMASTER_SANDBOX_ENABLED: 'true', RINGMASTER_SANDBOX_NETWORK: 'none', RINGMASTER_SANDBOX_ALLOW_WRITE: plain.agentDir, ...extra }) };
  const run = await bCompleteAWaiting(ws);
  ws.openGate('A', 2);
  expect(await run.closed).toBe(0);
  const all = events(run.stdout());
  expect(all.at(-1)).toMatchObject({ type: 'run_finished', stop_reason: 'success_signal', iterations: 3 });
  expectMergedInOrder(ws, run.runId());
  const show = JSON.parse((await ws.cli(['show', run.runId(), '--json'])).stdout) as { run: { spec: { sandbox: unknown } } };
  expect(show.run.spec.sandbox).toEqual({ network: 'none', hide: [], allowWrite: [plain.agentDir], allowHosts: [], memoryBytes: null, pids: null });
});
