// The Stop hook's stdin: schema (Claude Code and Codex send the same shape); the bounded reader is hook-stdin.ts.
import { z } from 'zod';
import { HookInputError } from './hook-stdin.js';

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

export { HookInputError, MAX_HOOK_INPUT_BYTES, readHookStdin } from './hook-stdin.js';

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
