// How a run's stop reason becomes the CLI's exit code (README.md#exit-codes).
import { EXIT } from '../core/errors.js';
import type { StopReason } from '../core/types.js';

/** Exit code for how a run ended. */
export function exitCodeFor(reason: StopReason): number {
  switch (reason) {
    case 'success_signal':
      return EXIT.success;
    case 'max_iterations':
    case 'max_runtime':
    case 'max_cost':
    case 'stalled':
    case 'no_progress':
      return EXIT.limit;
    case 'interrupted':
    case 'user_stop':
      return EXIT.interrupted;
    case 'failure_threshold':
    case 'fatal_error':
      return EXIT.failure;
  }
}
