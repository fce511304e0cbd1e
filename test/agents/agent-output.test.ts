// An agent's output on its way in (agents/agent-output.ts): through a pipe or through Ringmaster's own socket pair,
// decoded or as bytes, every byte reaches the log and the consumer in order, with its offset in the log.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { agentOutput } from '../../src/agents/agent-output.js';
import { tempDir } from '../helpers/cli.js';

let dir: { dir: string; cleanup: () => void } | null = null;
afterEach(() => dir?.cleanup());

function output(): { out: ReturnType<typeof agentOutput>; logPath: string } {
  dir = tempDir();
  const logPath = join(dir.dir, 'iteration-1.log');
  const out = agentOutput({ logPath, maxLogBytes: null, tailBytes: 16, secrets: [{ name: 'KEY', value: 'sekrit-value' }], onActivity: () => undefined, onLogError: () => undefined });
  return { out, logPath };
}

const CHUNKS = ['first line\n', 'with the sekrit-', 'value split\n', 'é'.repeat(3), 'last\n'];
const LOGGED = 'first line\nwith the [REDACTED:KEY] split\nééélast\n';

describe('agent output', () => {
  it('a pipe delivered as bytes: the log bytes with their offsets, redacted', async () => {
    const { out, logPath } = output();
    const stream = new PassThrough();
    const got: Array<[string, number]> = [];
    const done = out.pipe(stream, { bytes: (bytes, offset) => got.push([bytes.toString('latin1'), offset]) });
    for (const c of CHUNKS) stream.write(Buffer.from(c));
    stream.end();
    await done;
    out.close(Promise.resolve());
    await out.closed;
    const log = readFileSync(logPath);
    expect(log.toString()).toBe(LOGGED);
    expect(Buffer.concat(got.map(([b]) => Buffer.from(b, 'latin1'))).equals(log)).toBe(true);
    let at = 0;
    for (const [b, offset] of got) {
      expect(offset).toBe(at);
      at += b.length;
    }
    expect(out.bytesOut()).toBe(Buffer.byteLength(CHUNKS.join('')));
    expect(out.tail()).toBe('plit\nééélast\n');
  });

  it("through the socket pair: what is written to the child's end is decoded in order and logged whole", async () => {
    const { out, logPath } = output();
    const texts: string[] = [];
    const pair = await out.socket((text) => texts.push(text));
    expect(pair).not.toBeNull();
    if (pair === null) return;
    const big = 'x'.repeat(300_000);
    for (const c of [...CHUNKS, big]) pair.childEnd.write(Buffer.from(c));
    pair.childEnd.end();
    await pair.done;
    out.close(Promise.resolve());
    await out.closed;
    expect(texts.join('')).toBe(LOGGED + big);
    expect(readFileSync(logPath, 'utf8')).toBe(LOGGED + big);
  });
});
