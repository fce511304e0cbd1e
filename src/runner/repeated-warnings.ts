// How a run says its warnings: once, and one that comes back word for word (a workspace git refuses, failing
// every iteration) a second time, marked, then no more.

/** The text to show for `message` this time, or null when it has been said enough. */
export type WarningFilter = (message: string) => string | null;

/** A filter with its own memory of what was said (one per run). */
export function repeatedWarnings(): WarningFilter {
  const said = new Map<string, number>();
  return (message) => {
    const times = (said.get(message) ?? 0) + 1;
    said.set(message, times);
    if (times > 2) return null;
    return times === 2 ? `${message} (again: not repeated further in this run)` : message;
  };
}
