// The Stop hook's stdin: schema (Claude Code and Codex send the same shape) and a bounded reader.
import type { Readable } from 'node:stream';
import { z } from 'zod';

/** The fields of a Stop event the hook uses; others are allowed and ignored. */
export const stopHookInputSchema = z.looseObject({
  session_id: z.string().min(1),
  transcript_path: z.string().nullable().optional(),
  cwd: z.string().nullable().optional(),
  hook_event_name: z.string().optional(),
  stop_hook_active: z.boolean().default(false),
  last_assistant_message: z.string().nullable().optional(),
});

/** A validated Stop event. */
export type StopHookInput = z.infer<typeof stopHookInputSchema>;

/** Largest stdin the hook accepts (the real payload is a few hundred bytes). */
export const MAX_HOOK_INPUT_BYTES = 1024 * 1024;

/** Raised when stdin is not a usable Stop event. */
export class HookInputError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HookInputError';
  }
}

/** Parses and validates the hook's stdin. Throws HookInputError. */
export function parseStopHookInput(text: string): StopHookInput {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new HookInputError(`stdin is not JSON: ${(error as Error).message}`, { cause: error });
  }
  const result = stopHookInputSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new HookInputError(`stdin: ${issue?.path.join('.') || 'root'}: ${issue?.message ?? 'invalid'}`);
  }
  return result.data;
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
