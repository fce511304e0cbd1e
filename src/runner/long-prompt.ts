// A prompt passed as an argument (cursor-agent has no stdin mode) may be larger than the OS takes: then the agent
// gets it in a file next to the iteration's log, and a short argument saying where.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Invocation } from '../agents/types.js';

/** Longest single argument Linux takes (MAX_ARG_STRLEN, 32 pages of 4 KiB, with its NUL). */
export const MAX_ARG_BYTES = 128 * 1024 - 1;
/** Arguments and environment together beyond this are passed another way (ARG_MAX is usually 2 MiB or more). */
export const MAX_ARGV_ENV_BYTES = 1024 * 1024;

function argvEnvBytes(invocation: Invocation): number {
  let total = Buffer.byteLength(invocation.command) + 8;
  for (const arg of invocation.args) total += Buffer.byteLength(arg) + 9;
  for (const [k, v] of Object.entries(invocation.env)) if (v !== undefined) total += Buffer.byteLength(k) + Buffer.byteLength(v) + 10;
  return total;
}

/** The instruction given as the argument instead of a prompt too long for the command line. */
export function promptFilePointer(path: string): string {
  return `Your instructions are in the file ${path} (too long to pass on the command line). Read that whole file now and follow it exactly, as if it were this message.`;
}

/**
 * When the prompt is an argument of the invocation and too large for the OS (one argument over MAX_ARG_BYTES,
 * or arguments and environment over MAX_ARGV_ENV_BYTES), writes it next to the iteration's log (0600) and
 * passes a short argument pointing to it instead. Other invocations are returned as they are.
 */
export function passLongPromptByFile(invocation: Invocation, prompt: string, logPath: string): Invocation {
  const at = invocation.args.indexOf(prompt);
  if (at < 0 || (Buffer.byteLength(prompt) <= MAX_ARG_BYTES && argvEnvBytes(invocation) <= MAX_ARGV_ENV_BYTES)) return invocation;
  const file = logPath.replace(/\.log$/, '') + '.prompt.md';
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, prompt, { mode: 0o600 });
  const args = [...invocation.args];
  args[at] = promptFilePointer(file);
  return { ...invocation, args };
}
