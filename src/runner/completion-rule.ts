// A program's rule for judging an iteration's completion, as plain data so that it can go to an iteration helper.
import { createCompletionScanner } from '../core/completion.js';
import { createSignalScanner, type SignalScanner } from '../core/signals.js';

/** `until`: a workflow loop's signal (promise tag anywhere, plain signal on its own line or at the end); `none`: nothing ends it. */
export type CompletionRule = { kind: 'until'; signal: string } | { kind: 'none' };

/** The scanner of an iteration: the rule's, the program's own scanner, or the run's signals. */
export function completionScannerFor(rule: CompletionRule | null | undefined, own: (() => SignalScanner) | null | undefined, signals: readonly string[]): SignalScanner {
  if (own) return own();
  if (rule?.kind === 'until') return createCompletionScanner(rule.signal);
  if (rule?.kind === 'none') return { feed: () => false, found: false };
  return createSignalScanner(signals);
}
