// The run spec as read back from the store: one schema, parsed on read. Rows written by older versions lack
// fields that came later; they get the defaults those versions behaved with. Fields this schema does not name
// are kept as they are (a newer field is checked by the code that added it), so a spec read back is never cut.
import { z } from 'zod';
import { EXIT, UserError } from '../core/errors.js';
import type { RunSpec } from './run-spec.js';

const nullableNumber = z.number().nullable();

const limitsSchema = z.looseObject({
  maxIterations: nullableNumber,
  maxRuntimeMs: nullableNumber,
  maxCostUsd: nullableNumber,
  failureThreshold: z.number(),
  cooldownMs: z.number(),
  backoffBaseMs: z.number(),
  backoffMaxMs: z.number(),
});

const procedureSchema = z.looseObject({
  observe: z.string(),
  orient: z.string(),
  decide: z.string(),
  act: z.string(),
  defaultMaxIterations: nullableNumber,
});

const promptSchema = z.discriminatedUnion('kind', [
  z.looseObject({ kind: z.literal('text'), text: z.string() }),
  z.looseObject({ kind: z.literal('file'), path: z.string() }),
  z.looseObject({ kind: z.literal('procedure'), name: z.string(), procedure: procedureSchema }),
]);

const agentSchema = z.looseObject({
  name: z.string(),
  command: z.array(z.string()).nullable(),
  model: z.string().nullable(),
  args: z.array(z.string()),
  fallback: z.array(z.string()).default([]),
  permissionMode: z.enum(['bypass', 'default']),
  /** agent.auto_install came later: older runs never installed. */
  autoInstall: z.union([z.boolean(), z.string()]).default(false),
});

const storedSpecSchema = z.looseObject({
  workspace: z.string(),
  prompt: promptSchema,
  context: z.string().nullable().default(null),
  label: z.string(),
  limits: limitsSchema,
  idleTimeoutMs: nullableNumber,
  iterationTimeoutMs: nullableNumber,
  killGraceMs: z.number(),
  checkpointInterval: z.number(),
  successSignals: z.array(z.string()),
  failureSignal: z.string(),
  freshContext: z.boolean(),
  /** The log cap came later: undefined means the default cap applies (see RunSpec.maxLogBytes). */
  maxLogBytes: nullableNumber.optional(),
  /** The shared budget's poll interval came later. */
  budgetPollMs: z.number().optional(),
  agent: agentSchema,
  prices: z.record(z.string(), z.looseObject({})).default({}),
  /** The verify gate came later: older runs had none. */
  verify: z.object({ command: z.string(), timeoutMs: z.number(), each: z.boolean() }).nullable().default(null),
  /** The no-progress guard came later: older runs had none. */
  noProgressAfter: z.number().int().min(0).default(0),
});

/** Thrown when a stored spec is not one any version of Ringmaster wrote (a damaged or hand-edited row). */
export class StoredSpecError extends UserError {
  constructor(runId: string, problem: string) {
    super(`the stored settings of run ${runId} cannot be read (${problem}): the row is damaged; start a new run`, EXIT.io);
    this.name = 'StoredSpecError';
  }
}

/** Reads a run's stored spec: checked against the schema, with the defaults of fields older rows lack. */
export function parseStoredSpec(runId: string, stored: unknown): RunSpec {
  const parsed = storedSpecSchema.safeParse(stored);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new StoredSpecError(runId, issue === undefined ? 'not an object' : `${issue.path.join('.') || 'spec'}: ${issue.message}`);
  }
  // The schema checks every field a run needs; the loose objects keep what it does not name. The result is the
  // shape RunSpec describes (the price entries and newer fields are checked where they are used).
  return parsed.data as unknown as RunSpec;
}
