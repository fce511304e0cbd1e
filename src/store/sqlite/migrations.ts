// Numbered schema migrations of the SQLite store, applied in order and recorded in schema_migrations.
// Never edit a released migration: add the next number.

/** One migration: a version number, a name and the SQL it runs (inside one transaction). */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Every migration of the SQLite store, by version. */
export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'runs, owners, iterations, events, checkpoints, errors',
    sql: `
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  status TEXT NOT NULL,
  stop_reason TEXT,
  agent TEXT NOT NULL,
  spec_json TEXT NOT NULL,
  workspace TEXT NOT NULL,
  worktree TEXT,
  branch TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  ended_at INTEGER
);
CREATE INDEX runs_by_created ON runs (created_at DESC, id DESC);

CREATE TABLE run_owners (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  pid INTEGER NOT NULL,
  host TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL,
  ended_at INTEGER,
  PRIMARY KEY (run_id, seq)
);
CREATE UNIQUE INDEX run_owners_one_open ON run_owners (run_id) WHERE ended_at IS NULL;

CREATE TABLE iterations (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  number INTEGER NOT NULL CHECK (number >= 1),
  agent TEXT NOT NULL,
  status TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  completed_at INTEGER,
  duration_ms INTEGER,
  exit_code INTEGER,
  exit_signal TEXT,
  tokens_in INTEGER,
  tokens_out INTEGER,
  cache_read INTEGER,
  cache_write INTEGER,
  cost_usd REAL,
  completion_signal_found INTEGER NOT NULL DEFAULT 0,
  failure_signal_found INTEGER NOT NULL DEFAULT 0,
  error_kind TEXT,
  error_message TEXT,
  session_id TEXT,
  model TEXT,
  log_path TEXT,
  PRIMARY KEY (run_id, number)
);
CREATE INDEX iterations_by_started ON iterations (started_at);

CREATE TABLE events (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  at INTEGER NOT NULL,
  type TEXT NOT NULL,
  iteration INTEGER,
  payload_json TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);

CREATE TABLE checkpoints (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  iteration INTEGER NOT NULL,
  commit_sha TEXT,
  state TEXT NOT NULL,
  message TEXT,
  created_at INTEGER NOT NULL
);
CREATE INDEX checkpoints_by_run ON checkpoints (run_id, id);

CREATE TABLE errors (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  iteration INTEGER,
  kind TEXT NOT NULL,
  message TEXT NOT NULL,
  context_json TEXT,
  created_at INTEGER NOT NULL
);
CREATE INDEX errors_by_run ON errors (run_id, id);
`,
  },
  {
    version: 2,
    name: 'run kind and metadata, iteration units, checkpoint snapshots, control requests, imports',
    sql: `
ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'prompt';
ALTER TABLE runs ADD COLUMN meta_json TEXT NOT NULL DEFAULT '{}';
ALTER TABLE runs ADD COLUMN origin TEXT NOT NULL DEFAULT 'cli';
CREATE INDEX runs_by_workspace ON runs (workspace, created_at DESC);
CREATE INDEX runs_by_status ON runs (status);

ALTER TABLE iterations ADD COLUMN unit_id TEXT;

ALTER TABLE checkpoints ADD COLUMN snapshot_json TEXT;

CREATE TABLE control_requests (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  action TEXT NOT NULL CHECK (action IN ('pause', 'resume', 'stop', 'extend')),
  options_json TEXT NOT NULL DEFAULT '{}',
  requested_by TEXT,
  requested_at INTEGER NOT NULL,
  handled_at INTEGER,
  result TEXT
);
CREATE INDEX control_requests_pending ON control_requests (run_id, id) WHERE handled_at IS NULL;

CREATE TABLE imports (
  path TEXT PRIMARY KEY,
  imported_at INTEGER NOT NULL,
  runs INTEGER NOT NULL
);
`,
  },
  {
    version: 3,
    name: 'owner lease renewals by the store clock',
    sql: `
-- When the owner last renewed its lease (heartbeat or fenced write), by the store's clock: conditional claims
-- compare it with the same clock, never with another machine's.
ALTER TABLE run_owners ADD COLUMN renewed_at INTEGER;
`,
  },
  {
    version: 4,
    name: 'what each iteration changed: trees before and after, files changed, the ref of a discarded attempt',
    sql: `
ALTER TABLE iterations ADD COLUMN tree_before TEXT;
ALTER TABLE iterations ADD COLUMN tree_after TEXT;
-- JSON array of {path, change} (the first 1,000), and the count of every changed path.
ALTER TABLE iterations ADD COLUMN files_changed TEXT;
ALTER TABLE iterations ADD COLUMN files_changed_total INTEGER;
ALTER TABLE iterations ADD COLUMN discarded_ref TEXT;
`,
  },
  {
    version: 5,
    name: 'verify gate evidence on iterations',
    sql: `
-- The verify gate's evidence (run --verify): the check's command, exit code, duration and output tail as JSON text.
ALTER TABLE iterations ADD COLUMN verify TEXT;
`,
  },
  {
    version: 6,
    name: 'the shared budget (daily and monthly USD) every run of the store is held to',
    sql: `
-- One row (id 1): the limits in USD, NULL = none for that window (ringmaster budget set); per window, the
-- threshold (80, 100) last notified and the start of the window it was in (claimed by one process: notify once).
CREATE TABLE budget (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  daily_notice INTEGER,
  daily_notice_start INTEGER,
  monthly_notice INTEGER,
  monthly_notice_start INTEGER,
  daily_usd REAL,
  monthly_usd REAL,
  updated_at INTEGER NOT NULL
);
`,
  },
  {
    version: 7,
    name: 'notes to a run; note control requests',
    sql: `
-- A person's message to a run, delivered once in the prompt of the next iteration that starts (docs/notes.md).
CREATE TABLE notes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  text TEXT NOT NULL,
  created_by TEXT,
  created_at INTEGER NOT NULL,
  delivered_iteration INTEGER,
  delivered_at INTEGER,
  cancelled_at INTEGER
);
CREATE INDEX notes_by_run ON notes (run_id, id);

-- The owner of a run announces a new note (note_added) on a 'note' request: the action's CHECK widens, which
-- SQLite does by copying the table.
CREATE TABLE control_requests_new (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  action TEXT NOT NULL CHECK (action IN ('pause', 'resume', 'stop', 'extend', 'note')),
  options_json TEXT NOT NULL DEFAULT '{}',
  requested_by TEXT,
  requested_at INTEGER NOT NULL,
  handled_at INTEGER,
  result TEXT
);
INSERT INTO control_requests_new (id, run_id, action, options_json, requested_by, requested_at, handled_at, result)
  SELECT id, run_id, action, options_json, requested_by, requested_at, handled_at, result FROM control_requests;
DROP TABLE control_requests;
ALTER TABLE control_requests_new RENAME TO control_requests;
CREATE INDEX control_requests_pending ON control_requests (run_id, id) WHERE handled_at IS NULL;
`,
  },
  {
    version: 8,
    name: "a run's program definition, stored apart from its metadata",
    sql: `
-- What a program's run is made of and does not change as it goes (a workflow's resolved steps): written when the
-- run is created (again when a resume changes it), never with every iteration as the run's metadata is.
CREATE TABLE run_definitions (
  run_id TEXT PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
  definition_json TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
`,
  },
];
