// `ringmaster hook stop` ends within its own time bound whatever its stdin does and whatever transcript_path names,
// and fails open (allows the stop). Through the real CLI process.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile, mkdir, open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, NODE, runCli } from './cli-process.js';

let project = '';
beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'rm-hook-bounded-'));
  const started = await runCli(['loop', 'start', 'Do it', '--max-iterations', '3', '--completion-marker', 'DONE'], { cwd: project });
  expect(started.exitCode).toBe(0);
});
afterEach(async () => {
  await rm(project, { recursive: true, force: true });
});

interface HookRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `hook stop`; `feed` drives its stdin (it may never end it). */
function hookStop(feed: (stdin: NodeJS.WritableStream) => void): Promise<HookRun> {
  return new Promise((resolve) => {
    const child = spawn(NODE, [BIN, 'hook', 'stop'], { cwd: project, env: { PATH: '/usr/bin:/bin', HOME: project }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.stdin.on('error', () => undefined);
    child.on('close', (exitCode) => resolve({ exitCode, stdout, stderr }));
    feed(child.stdin);
  });
}

const event = (transcript: string | null, last = 'still working'): string =>
  JSON.stringify({ session_id: 's1', transcript_path: transcript, cwd: project, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: last });

const assistantLine = (text: string): string => JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text }] } });

describe('stdin', () => {
  it('held open and never closed: the stop is allowed after the stdin limit, and the process ends', async () => {
    const r = await hookStop((stdin) => stdin.write('{"session_id":'));
    expect(r).toEqual({ exitCode: 0, stdout: '', stderr: 'ringmaster hook stop: warning: no end of stdin after 5000 ms\n' });
  }, 30_000);

  it('an endless stream (like `yes`): refused past 1 MiB, the stop allowed, the process ends', async () => {
    let open = true;
    const r = await hookStop((stdin) => {
      const chunk = 'y\n'.repeat(32 * 1024);
      const pump = (): void => {
        while (open && stdin.write(chunk));
        if (open) stdin.once('drain', pump);
      };
      stdin.on('close', () => (open = false));
      stdin.on('error', () => (open = false));
      pump();
    });
    open = false;
    expect(r).toEqual({ exitCode: 0, stdout: '', stderr: 'ringmaster hook stop: warning: stdin larger than 1048576 bytes\n' });
  }, 30_000);
});

describe('transcript_path', () => {
  it('a FIFO with no writer: not opened for ever; the decision is taken without it', async () => {
    const fifo = join(project, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const r = await hookStop((stdin) => stdin.end(event(fifo)));
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ decision: 'block' });
    expect(r.stderr).toBe(`ringmaster hook stop: warning: cannot read the transcript: ${fifo} is not a regular file\n`);
  }, 30_000);

  it.each([['/dev/zero'], ['/dev/urandom']])('a device or pseudo-file (%s) is not read', async (path) => {
    const r = await hookStop((stdin) => stdin.end(event(path)));
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ decision: 'block' });
    expect(r.stderr).toMatch(/^ringmaster hook stop: warning: cannot read the transcript: .* is not a regular file\n$/);
  }, 30_000);

  it('a directory is not read', async () => {
    const dir = join(project, 'a-dir');
    await mkdir(dir);
    const r = await hookStop((stdin) => stdin.end(event(dir)));
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/cannot read the transcript/);
  });

  it('a huge transcript (16 GiB, sparse) is read from its tail only: the promise at its end is found', async () => {
    const path = join(project, 'transcript.jsonl');
    const handle = await open(path, 'w');
    await handle.truncate(16 * 1024 ** 3);
    await handle.close();
    await writeFile(path, `\n${JSON.stringify({ type: 'user', message: { role: 'user', content: 'go' } })}\n${assistantLine('all done <promise>DONE</promise>')}\n`, { flag: 'a' });
    const r = await hookStop((stdin) => stdin.end(event(path)));
    expect(r).toEqual({ exitCode: 0, stdout: '', stderr: '' });
  }, 30_000);
});
