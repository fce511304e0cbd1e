// Typed errors of the store: contract violations (bugs or a lost ownership) and unknown runs.
import { EXIT, UserError } from '../core/errors.js';

/** A write that breaks the store contract, e.g. a duplicate iteration number or completing a closed row. */
export class StoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
  }
}

/** A database written by a newer ringmaster (a migration this version does not know). */
export class StoreVersionError extends UserError {
  constructor(path: string, found: number, known: number) {
    super(`${path} has schema version ${found}, this ringmaster knows up to ${known}: upgrade ringmaster`, EXIT.failure);
    this.name = 'StoreVersionError';
  }
}

/** No run with that id in this workspace. */
export class RunNotFoundError extends UserError {
  readonly runId: string;
  constructor(runId: string, workspace: string) {
    super(`no run '${runId}' in ${workspace} (see 'ringmaster runs')`, EXIT.usage);
    this.name = 'RunNotFoundError';
    this.runId = runId;
  }
}

/** A run id prefix that matches more than one run. */
export class AmbiguousRunIdError extends UserError {
  readonly matches: string[];
  constructor(prefix: string, matches: string[]) {
    super(`run id '${prefix}' is ambiguous: it matches ${matches.join(', ')}`, EXIT.usage);
    this.name = 'AmbiguousRunIdError';
    this.matches = matches;
  }
}

/** The workspace has no ringmaster database yet. */
export class NoStoreError extends UserError {
  constructor(where: string) {
    super(`no ringmaster runs yet (no database for ${where}): start one with 'ringmaster run'`, EXIT.usage);
    this.name = 'NoStoreError';
  }
}

/** A write made on behalf of an owner that no longer holds the run (another process claimed it): it must stop. */
export class OwnershipLostError extends StoreError {
  readonly runId: string;
  constructor(runId: string, owner: { pid: number; host: string }, what: string) {
    super(`${what}: run ${runId} is no longer driven by pid ${owner.pid} on ${owner.host} (another process claimed it)`);
    this.name = 'OwnershipLostError';
    this.runId = runId;
  }
}

/** A conditional claim refused: the run's owner renewed its lease more recently than the claim allows. */
export class RunBusyError extends StoreError {
  readonly runId: string;
  /** How long the owner has been silent, by the store's clock (ms). */
  readonly idleMs: number;
  constructor(runId: string, owner: { pid: number; host: string }, idleMs: number) {
    super(`claimRun: run ${runId} is driven by pid ${owner.pid} on ${owner.host} (last renewed ${idleMs} ms ago)`);
    this.name = 'RunBusyError';
    this.runId = runId;
    this.idleMs = idleMs;
  }
}

/** A claim that may only continue a run (onlyIfResumable) found it ended for good (completed, failed, stopped by a user). */
export class RunEndedError extends StoreError {
  readonly runId: string;
  constructor(runId: string, status: string, reason: string | null) {
    super(`claimRun: run ${runId} has ended (${status}${reason ? `, ${reason}` : ''})`);
    this.name = 'RunEndedError';
    this.runId = runId;
  }
}
