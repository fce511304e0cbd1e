// Rebuilds the program of a stored run from its kind (resume, a server restart): each kind of loop
// registers how its program is recreated from the run's spec and metadata.
import { UserError } from '../core/errors.js';
import type { LoopProgram } from '../runner/program.js';
import type { RunSpec } from '../spec/run-spec.js';
import { metaFromStorage } from '../spec/run-spec.js';
import type { RunRow, Store } from '../store/index.js';

/** Recreates a program from a stored run and its stored definition (null when it has none). */
export type ProgramFactory = (run: RunRow, spec: RunSpec, definition: Record<string, unknown> | null) => LoopProgram | Promise<LoopProgram>;

const factories = new Map<string, ProgramFactory>();

/** Registers how runs of `kind` get their program back. */
export function registerProgramKind(kind: string, factory: ProgramFactory): void {
  factories.set(kind, factory);
}

/**
 * The program of a stored run; undefined for plain prompt loops (the runner's default). `run.meta` and `definition`
 * as stored with the run, their secrets already put back (storedDefinition).
 */
export async function programForRun(run: RunRow, spec: RunSpec, definition: Record<string, unknown> | null = null): Promise<LoopProgram | undefined> {
  if (run.kind === 'prompt') return undefined;
  const factory = factories.get(run.kind);
  if (!factory) throw new UserError(`run ${run.id} is a '${run.kind}' run, which this version of ringmaster cannot continue`);
  return factory(run, spec, definition);
}

/** The run's stored program definition with the secrets of `env` put back; null when it has none. */
export async function storedDefinition(store: Pick<Store, 'getRunDefinition'>, runId: string, env: Readonly<Record<string, string | undefined>>): Promise<Record<string, unknown> | null> {
  const stored = await store.getRunDefinition(runId);
  return stored === null ? null : metaFromStorage(stored, env);
}
