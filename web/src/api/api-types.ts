// The one module that says what the server's API carries. Nothing here is declared: it re-exports the server's
// own zod schemas (src/server/schemas.ts, src/manager/views.ts, src/runner/events.ts; they import only zod and
// pure modules, so they bundle for the browser) and the types inferred from them. Everything else in web/
// imports API shapes from here only.
import type { z } from 'zod';
import type { RUN_STATUSES } from '../../../src/core/types.js';
import type { checkpointViewSchema, iterationViewSchema } from '../../../src/manager/views.js';
import type {
  agentListSchema,
  budgetReportSchema,
  clientMessageSchema,
  controlOutcomeSchema,
  noteSchema,
  runCreatedSchema,
  runDetailSchema,
  runItemSchema,
  runListSchema,
  searchResultSchema,
  serverMessageSchema,
  statsSchema,
  unitSchema,
} from '../../../src/server/schemas.js';

export {
  activityListSchema,
  agentListSchema,
  budgetReportSchema,
  controlOutcomeSchema,
  errorSchema,
  noteListSchema,
  noteSchema,
  eventListSchema,
  rollbackResultSchema,
  runCreatedSchema,
  runDetailSchema,
  runListSchema,
  searchResultSchema,
  serverMessageSchema,
  statsSchema,
} from '../../../src/server/schemas.js';

/** Stored run events (one schema for --json, the events table and the WebSocket) and live agent activity. */
export { agentActivitySchema, runEventSchema, type AgentActivity, type RunEvent } from '../../../src/runner/events.js';

/** The body of POST /api/runs: `ringmaster run`'s options (a type only: the form validates with the CLI's parsers). */
export type { RunRequest } from '../../../src/manager/run-request.js';

/** A stored run status. */
export type RunStatus = (typeof RUN_STATUSES)[number];

/** One run as GET /api/runs lists it (and the board shows it). */
export type RunItem = z.infer<typeof runItemSchema>;

/** A status as displayed: the stored ones plus `orphaned` (an active run whose owner is gone). */
export type DisplayStatus = RunItem['status'];

/** GET /api/runs: a page of runs. */
export type RunList = z.infer<typeof runListSchema>;

/** GET /api/runs/:id: one run with its iterations, checkpoints and units. */
export type RunDetail = z.infer<typeof runDetailSchema>;

/** The run of a RunDetail: a RunItem plus its spec, last iteration number and summed iteration time. */
export type RunDetailRun = RunDetail['run'];

/** One iteration row. */
export type Iteration = z.infer<typeof iterationViewSchema>;

/** One checkpoint row. */
export type Checkpoint = z.infer<typeof checkpointViewSchema>;

/** A task of a task loop, or a step of a workflow. */
export type Unit = z.infer<typeof unitSchema>;

/** GET /api/runs/:id/search: the iterations whose stored output contains a text. */
export type SearchResult = z.infer<typeof searchResultSchema>;

/** GET /api/stats. */
export type Stats = z.infer<typeof statsSchema>;

/** GET /api/budget: the shared budget and its spend. */
export type BudgetReport = z.infer<typeof budgetReportSchema>;

/** POST /api/runs answer. */
export type RunCreated = z.infer<typeof runCreatedSchema>;

/** What POST /api/runs/:id/{pause,resume,stop,extend} answer. */
export type ControlOutcome = z.infer<typeof controlOutcomeSchema>;
/** A note to a run (docs/notes.md). */
export type Note = z.infer<typeof noteSchema>;

/** GET /api/agents: one agent CLI a run can use. */
export type Agent = z.infer<typeof agentListSchema>['agents'][number];

/** A message the server sends on /api/ws. */
export type ServerMessage = z.infer<typeof serverMessageSchema>;

/** A message the client sends on /api/ws. */
export type ClientMessage = z.infer<typeof clientMessageSchema>;
