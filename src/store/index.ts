// Public surface of the store module.
export type * from './store.js';
export type * from './rows.js';
export { ITERATION_STATUSES, CHECKPOINT_STATES, CONTROL_ACTIONS, RUN_STATUSES } from './rows.js';
export type { StoreMetrics, IterationFigures, DurationFigures } from './metrics-sql.js';
export { DURATION_BUCKETS_S } from './metrics-sql.js';
export { SqliteStore } from './sqlite/store.js';
// The PostgreSQL store is loaded on demand (openStore with a database URL; or import
// 'src/store/postgres/store.js'), so SQLite users never load the driver.
export type { PostgresStore, PostgresStoreOptions } from './postgres/store.js';
export { StoreUnavailableError } from './unavailable.js';
export { isWatchable, CHANNELS } from './watchable.js';
export type { Channel, Subscription, WatchableStore } from './watchable.js';
export { openStore } from './open-store.js';
export type { OpenStoreOptions } from './open-store.js';
export { StoreError, StoreVersionError, RunNotFoundError, AmbiguousRunIdError, NoStoreError, OwnershipLostError, RunBusyError, RunEndedError } from './errors.js';
export { agentPidPath, dataDir, databasePath, ensurePrivateDir, iterationLogPath, runDir, workspaceKey, workspaceLockPath, RINGMASTER_DIR } from './paths.js';
export { displayStatus, isOrphaned, isQueued, resumable, ACTIVE_STATUSES, DEFAULT_STALE_AFTER_MS, HEARTBEAT_INTERVAL_MS } from './liveness.js';
export type { DisplayStatus, LivenessProbe } from './liveness.js';
export { busyLine, isBusy, lockedBy } from './busy-retry.js';
export type { BusyNotice } from './busy-retry.js';
