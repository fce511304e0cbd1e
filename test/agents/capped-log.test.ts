// The iteration log's batched writes (agents/capped-log.ts): every byte reaches the file in order, whatever the
// chunks' sizes and with backpressure honoured, and a batch is written while the agent is silent.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { BATCH_BYTES, CappedLog, FIRST_BATCH_BYTES } from '../../src/agents/capped-log.js';
import { until } from '../helpers/until.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function logPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rm-capped-log-'));
  dirs.push(dir);
  return join(dir, 'iteration-1.log');
}

it('writes every chunk in order across batches, from 1 byte to several batches long, waiting on drain', async () => {
  // The first chunks fit and then overflow the first (small) batch buffer, the next ones the large ones.
  const path = logPath();
  const log = new CappedLog(path, null);
  const chunks: Buffer[] = [];
  const sizes = [1, 7, FIRST_BATCH_BYTES - 9, 8192, 65536, BATCH_BYTES - 3, 3, BATCH_BYTES, 2 * BATCH_BYTES + 5, 100, 4 * BATCH_BYTES];
  for (let i = 0; i < 400; i++) {
    const size = sizes[i % sizes.length] ?? 1;
    const chunk = Buffer.alloc(size, `chunk ${i} `);
    chunks.push(chunk);
    if (!log.write(chunk)) await new Promise<void>((resolve) => log.once('drain', resolve));
  }
  await log.end();
  expect(readFileSync(path).equals(Buffer.concat(chunks))).toBe(true);
});

it('writes a batch while the agent is silent, before the log ends', async () => {
  const path = logPath();
  const log = new CappedLog(path, null);
  log.write(Buffer.from('hello\n'));
  await until('the batch in the file', () => statSync(path, { throwIfNoEntry: false })?.size === 6);
  log.write(Buffer.from('again\n'));
  await log.end();
  expect(readFileSync(path, 'utf8')).toBe('hello\nagain\n');
});

it('a log of small writes that never fills its first buffer, and one that does, both arrive whole; logs one after another reuse buffers', async () => {
  for (const total of [FIRST_BATCH_BYTES - 1, FIRST_BATCH_BYTES, FIRST_BATCH_BYTES + 1, 3 * BATCH_BYTES + 17]) {
    const path = logPath();
    const log = new CappedLog(path, null);
    const chunks: Buffer[] = [];
    for (let written = 0, i = 0; written < total; i++) {
      const chunk = Buffer.alloc(Math.min(1000 + (i % 7) * 333, total - written), `${total} ${i} `);
      chunks.push(chunk);
      written += chunk.length;
      if (!log.write(chunk)) await new Promise<void>((resolve) => log.once('drain', resolve));
    }
    await log.end();
    expect(readFileSync(path).equals(Buffer.concat(chunks)), `${total} bytes`).toBe(true);
  }
});
