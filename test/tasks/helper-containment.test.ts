// A task's completion check and a hook are contained as agents are: a daemon one of them starts in its own
// session (`setsid`) does not outlive it (process group, then the RINGMASTER_AGENT_TAG sweep). Through the CLI.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { cleanEnv, runCli, useWorkspace } from '../helpers/cli.js';
import { alive } from '../helpers/proc.js';

const ws = useWorkspace('unused\n');

it('a setsid daemon started by a verify command or a hook is ended with it', async () => {
  const daemon = join(ws.dir, 'daemon.sh');
  // Starts `sleep` in a session of its own, detached from every pipe, and records its pid in $1.pid.
  writeFileSync(daemon, `#!/bin/sh\nsetsid sh -c 'echo $$ > "$0.pid"; exec sleep 600' "$1" </dev/null >/dev/null 2>&1 &\nwhile [ ! -s "$1.pid" ]; do sleep 0.01; done\n`, { mode: 0o755 });
  writeFileSync(join(ws.dir, 'agent.sh'), '#!/bin/sh\ncat >/dev/null\necho "<promise>COMPLETE</promise>"\n', { mode: 0o755 });
  writeFileSync(join(ws.dir, 'tasks.jsonl'), `${JSON.stringify({ id: 'A', title: 'a', completion: { type: 'test', command: `${daemon} check` } })}\n`);
  writeFileSync(join(ws.dir, 'ringmaster.yml'), `hooks:\n  task_start: ${daemon} hook\n`);
  const r = await runCli(['tasks', 'run', '--agent-command', join(ws.dir, 'agent.sh'), '--cooldown', '0s'], { cwd: ws.dir, env: cleanEnv() });
  expect([r.code, r.stderr.includes('internal error')]).toEqual([0, false]);
  const pids = ['check', 'hook'].map((name) => Number(readFileSync(join(ws.dir, `${name}.pid`), 'utf8').trim()));
  expect(pids.every((pid) => pid > 1)).toBe(true);
  expect(pids.map(alive)).toEqual([false, false]);
});
