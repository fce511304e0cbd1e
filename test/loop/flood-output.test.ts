// A plain-text agent that floods its stdout (issue 22): read through Ringmaster's own socket pair into one reused
// buffer (os/reader-socket.ts), and only its last lines decoded (runner/lazy-text.ts).
// The log still holds every byte, an echo of the prompt after the flood still does not count, the agent's own
// signal after it does. Through the built CLI.
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli, useWorkspace } from '../helpers/cli.js';

const PROMPT = 'Write a lot.\nWhen everything is written, print <promise>COMPLETE</promise> on a line of its own.\n';
const ws = useWorkspace(PROMPT);
const FLOOD = 3_000_000;

/** An agent that writes FLOOD bytes of lines, then `last` (`prompt`: the prompt it was given). */
function floodAgent(dir: string, last: string): string {
  const file = join(dir, 'flood.sh');
  writeFileSync(file, `#!/bin/sh\ncat > "${dir}/given.txt"\nyes 'filler line of the flood, nothing to see' | head -c ${FLOOD}\n${last === 'prompt' ? `cat "${dir}/given.txt"` : `printf '%s\\n' '${last}'`}\n`);
  chmodSync(file, 0o755);
  return file;
}

/** The log path and the completion verdict of the first iteration, from `run --json` output. */
function iterationOf(stdout: string): { logPath: string; found: boolean } {
  const events = stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { type: string; log_path?: string; completion_signal_found?: boolean });
  const started = events.find((e) => e.type === 'iteration_started');
  const completed = events.find((e) => e.type === 'iteration_completed');
  return { logPath: started?.log_path ?? '', found: completed?.completion_signal_found ?? false };
}

describe('a flood of plain-text output', () => {
  it('the prompt echoed after 3 MB of lines has not signalled; the log holds every byte', async () => {
    const r = await runCli(['run', '--agent-command', floodAgent(ws.dir, 'prompt'), '--max-iterations', '1', '--checkpoint-interval', '0', '--json'], {
      cwd: ws.dir,
      env: cleanEnv({ RINGMASTER_LOOP_MAX_LOG_SIZE: 'none' }),
    });
    expect(r.code).toBe(2);
    const it1 = iterationOf(r.stdout);
    expect(it1.found).toBe(false);
    expect(statSync(it1.logPath).size).toBe(FLOOD + PROMPT.length);
  }, 30_000);

  it("the agent's own signal after 3 MB of lines completes the run; the log holds every byte", async () => {
    const r = await runCli(['run', '--agent-command', floodAgent(ws.dir, 'all written: <promise>COMPLETE</promise>'), '--max-iterations', '1', '--checkpoint-interval', '0', '--json'], {
      cwd: ws.dir,
      env: cleanEnv({ RINGMASTER_LOOP_MAX_LOG_SIZE: 'none' }),
    });
    expect(r.code).toBe(0);
    const it1 = iterationOf(r.stdout);
    expect(it1.found).toBe(true);
    const log = readFileSync(it1.logPath);
    expect(log.length).toBe(FLOOD + 41);
    expect(log.subarray(-41).toString()).toBe('all written: <promise>COMPLETE</promise>\n');
  }, 30_000);
});
