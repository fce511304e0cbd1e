// What node:util's parseArgs says about bad flags, as one line a user can act on.

/** The message of a parseArgs error (or anything thrown while parsing flags), on one line. */
export function flagProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // `--max-iterations -1`: parseArgs takes -1 for an option and asks in three lines whether a value was forgotten.
  const ambiguous = /^Option '(-[-\w]+)' argument is ambiguous/.exec(message);
  if (ambiguous) return `${ambiguous[1]} needs a value; one that starts with '-' is written ${ambiguous[1]}=VALUE`;
  return message.replace(/\. To specify a positional argument.*$/s, '').replace(/\s*\n\s*/g, ' ');
}
