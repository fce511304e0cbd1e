// The server's store with its writes timed (for the store write latency of /metrics): every other method, and
// everything the store is (watchable or not), passes through untouched.
import type { Store } from '../store/index.js';

/** The Store methods that write. */
export const WRITE_METHODS = [
  'createRun', 'updateRunSpec', 'updateRunMeta', 'updateRunDefinition', 'updateRunStatus', 'finishRun', 'claimRun', 'releaseRun', 'heartbeat',
  'startIteration', 'updateIteration', 'completeIteration', 'appendEvent', 'appendEvents', 'requestControl',
  'markControlHandled', 'recordCheckpoint', 'recordError',
] as const satisfies ReadonlyArray<keyof Store>;

const WRITES: ReadonlySet<string | symbol> = new Set(WRITE_METHODS);

/** `store` with each write's duration told to `observe` (seconds), whether it succeeded or not. */
export function timedStore<S extends Store>(store: S, observe: (method: string, seconds: number) => void): S {
  return new Proxy(store, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (!WRITES.has(name)) return method.bind(target);
      return async (...args: unknown[]): Promise<unknown> => {
        const start = performance.now();
        try {
          return await method.apply(target, args);
        } finally {
          observe(String(name), (performance.now() - start) / 1000);
        }
      };
    },
  });
}
