// What adapters read from the world, injected so parsers and argv stay pure in tests: clock, zone, root.
import type { ResetClock } from './reset-time.js';

/** The outside facts an adapter depends on. */
export interface AdapterDeps {
  /** The current time and the user's local zone, for reset times given as "5pm". */
  clock(): ResetClock;
  /** True when running as root (Claude refuses --dangerously-skip-permissions as root without IS_SANDBOX=1). */
  isRoot: boolean;
}

/** The real clock, local zone and uid. */
export function defaultDeps(): AdapterDeps {
  return {
    clock: () => ({ nowMs: Date.now(), timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone }),
    isRoot: typeof process.getuid === 'function' && process.getuid() === 0,
  };
}
