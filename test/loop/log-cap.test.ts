// An agent that writes without end must not fill the disk: the iteration log keeps its head and tail around a
// marker once it reaches loop.max_log_size, and the agent's output is still scanned for the signal in full.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ByteTail, capMarker, CappedLog } from '../../src/agents/capped-log.js';
import { cleanEnv, normalise, runCli, tempDir, useWorkspace } from '../helpers/cli.js';

const ws = useWorkspace('Work. When done, print <promise>COMPLETE</promise>.\n');

/** A command agent that writes `lines` numbered lines of 100 bytes, then the signal. */
function floodAgent(dir: string, lines: number): string {
  const file = join(dir, 'flood.mjs');
  writeFileSync(
    file,
    `process.stdin.resume();
process.stdin.on('end', async () => {
  const write = (s) => new Promise((r) => (process.stdout.write(s) ? r() : process.stdout.once('drain', r)));
  await write('FIRST LINE\\n');
  for (let i = 0; i < ${lines}; i++) await write(String(i).padStart(99, '.') + '\\n');
  await write('done <promise>COMPLETE</promise>\\n');
});
`,
  );
  return `${process.execPath} ${file}`;
}

/** The log path of the first iteration, from `run --json` output. */
function logPathOf(stdout: string): string {
  for (const line of stdout.split('\n')) {
    if (!line) continue;
    const event = JSON.parse(line) as { type: string; log_path?: string };
    if (event.type === 'iteration_started' && event.log_path) return event.log_path;
  }
  throw new Error(`no iteration_started in ${stdout}`);
}

describe('iteration log size cap', () => {
  it('50 MB of output with a 1 MiB cap: the log is ~1 MiB (head, marker, tail), and the final signal still completes the run', async () => {
    const r = await runCli(['run', '--agent-command', floodAgent(ws.dir, 500_000), '--max-iterations', '1', '--json'], {
      cwd: ws.dir,
      env: cleanEnv({ RINGMASTER_LOOP_MAX_LOG_SIZE: '1MiB' }),
    });
    expect(r.code).toBe(0);
    const path = logPathOf(r.stdout);
    const size = statSync(path).size;
    const total = 11 + 500_000 * 100 + 33;
    const marker = capMarker(total - 1024 * 1024, 1024 * 1024);
    expect(size).toBe(1024 * 1024 + marker.length);
    const log = readFileSync(path, 'utf8');
    expect(log.startsWith('FIRST LINE\n')).toBe(true);
    expect(log).toContain(marker);
    expect(log.endsWith('done <promise>COMPLETE</promise>\n')).toBe(true);
  }, 60_000);

  it("'none' keeps every byte; config show prints the cap", async () => {
    const r = await runCli(['run', '--agent-command', floodAgent(ws.dir, 20_000), '--max-iterations', '1', '--json'], {
      cwd: ws.dir,
      env: cleanEnv({ RINGMASTER_LOOP_MAX_LOG_SIZE: 'none' }),
    });
    expect(r.code).toBe(0);
    expect(statSync(logPathOf(r.stdout)).size).toBe(11 + 20_000 * 100 + 33);
    const show = await runCli(['config', 'show'], { cwd: ws.dir, env: cleanEnv() });
    expect(normalise(show.stdout).split('\n').map((l) => l.replace(/\s+/g, ' '))).toContain('loop.max_log_size 100 MiB (built-in)');
  });
});

describe('CappedLog', () => {
  it('splits a chunk at the cap, keeps exactly the last bytes, and writes nothing extra under the cap', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const capped = new CappedLog(join(dir, 'a.log'), 10);
      capped.write(Buffer.from('0123456'));
      capped.write(Buffer.from('789abcdef'));
      capped.write(Buffer.from('XYZ'));
      await capped.end();
      // Head 5 bytes, tail 5 bytes; 14 bytes past the head, of which the last 5 are kept.
      expect(readFileSync(join(dir, 'a.log'), 'utf8')).toBe(`01234${capMarker(9, 10)}efXYZ`);
      const under = new CappedLog(join(dir, 'b.log'), 10);
      under.write(Buffer.from('0123456789'));
      await under.end();
      expect(readFileSync(join(dir, 'b.log'), 'utf8')).toBe('0123456789');
    } finally {
      cleanup();
    }
  });
});

describe('ByteTail', () => {
  it('keeps exactly the last N bytes of any sequence of chunks (its own copy: later changes to a chunk do not show)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 }), fc.array(fc.uint8Array({ maxLength: 60 }), { maxLength: 30 }), (max, chunks) => {
        const tail = new ByteTail(max);
        const all: number[] = [];
        for (const chunk of chunks) {
          const buffer = Buffer.from(chunk);
          tail.push(buffer);
          buffer.fill(0xff);
          all.push(...chunk);
        }
        const expected = Buffer.from(max === 0 ? [] : all.slice(-max));
        expect(tail.bytes()).toEqual(expected);
        expect(tail.kept).toBe(expected.length);
      }),
    );
  });
});
