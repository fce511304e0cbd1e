// A byte range of an iteration log, decoded as UTF-8 without cutting a character in two: the next request
// starts where this one stopped, so a client following a log by polling sees every byte once.
import { open } from 'node:fs/promises';

/** The text of `[offset, offset + limit)` cut back to a whole UTF-8 character, and where the next read starts. */
export async function readLogRange(path: string, offset: number, limit: number): Promise<{ text: string; nextOffset: number; size: number }> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { text: '', nextOffset: offset, size: 0 };
    throw error;
  }
  try {
    const { size } = await handle.stat();
    if (offset >= size) return { text: '', nextOffset: offset, size };
    const buffer = Buffer.alloc(Math.min(limit, size - offset));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
    const end = offset + bytesRead >= size ? bytesRead : wholeCharacters(buffer, bytesRead);
    return { text: buffer.subarray(0, end).toString('utf8'), nextOffset: offset + end, size };
  } finally {
    await handle.close();
  }
}

/** How many of the first `length` bytes end on a character boundary (drops an incomplete last sequence). */
export function wholeCharacters(buffer: Buffer, length: number): number {
  // Walk back over at most 3 continuation bytes (10xxxxxx) to the lead byte of the last character.
  let i = length - 1;
  while (i >= 0 && length - i <= 4 && ((buffer[i] ?? 0) & 0xc0) === 0x80) i--;
  if (i < 0) return length;
  const lead = buffer[i] ?? 0;
  const needed = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return length - i >= needed ? length : i;
}
