// The Stop hook's stdin, read with bounds (size, time). Its own module, without the schema: `hook stop` reads
// stdin before it knows whether the project has a loop at all.
import type { Readable } from 'node:stream';

/** Largest stdin the hook accepts (the real payload is a few hundred bytes). */
export const MAX_HOOK_INPUT_BYTES = 1024 * 1024;

/** Raised when stdin is not a usable Stop event. */
export class HookInputError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HookInputError';
  }
}

/** Reads stdin up to MAX_HOOK_INPUT_BYTES, giving up after `timeoutMs` (the hook must never hang a session). */
export async function readHookStdin(stdin: Readable, timeoutMs = 5000): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HookInputError(`no end of stdin after ${timeoutMs} ms`)), timeoutMs);
  });
  const read = (async () => {
    for await (const chunk of stdin) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      size += buffer.length;
      if (size > MAX_HOOK_INPUT_BYTES) throw new HookInputError(`stdin larger than ${MAX_HOOK_INPUT_BYTES} bytes`);
      chunks.push(buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  })();
  read.catch(() => undefined);
  try {
    return await Promise.race([read, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
