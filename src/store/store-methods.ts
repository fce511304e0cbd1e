// The names of the Store contract's methods, for the layers that pass every call through (the busy retry, the
// worker-thread proxy). The compiler checks the list is complete.
import type { Store } from './store.js';

/** Every method of Store but close(). */
export const STORE_METHODS = [
  'createRun', 'getRun', 'findRun', 'listRuns', 'countRuns', 'updateRunSpec', 'updateRunMeta', 'updateRunDefinition', 'getRunDefinition', 'updateRunStatus', 'finishRun',
  'claimRun', 'releaseRun', 'heartbeat', 'startIteration', 'updateIteration', 'completeIteration', 'getIteration',
  'listIterations', 'runTotals', 'appendEvent', 'appendEvents', 'listEvents', 'lastEventSeq', 'listEventsAfterId',
  'lastEventId', 'requestControl', 'pendingControls', 'getControl', 'markControlHandled', 'addNote', 'listNotes', 'cancelNote', 'claimNotes', 'importDatabase',
  'recordCheckpoint', 'listCheckpoints', 'recordError', 'listErrors', 'stats', 'metrics', 'getBudget', 'setBudget', 'spendSince',
  'claimBudgetNotice',
] as const satisfies ReadonlyArray<Exclude<keyof Store, 'close'>>;

/** A Store method name (close aside). */
export type StoreMethod = (typeof STORE_METHODS)[number];

// Fails to compile when Store gains a method the list does not name.
const complete: Record<Exclude<keyof Store, 'close' | StoreMethod>, never> = {};
void complete;

/** Any method of a store called by name with its arguments as an array. */
export function callStore(store: Store, method: StoreMethod, args: readonly unknown[]): Promise<unknown> {
  const target = store as unknown as Record<StoreMethod, (...a: unknown[]) => Promise<unknown>>;
  return target[method](...args);
}
