// Numbered schema migrations of the PostgreSQL store, applied in order and recorded in schema_migrations.
// Never edit a released migration: add the next number. Same tables and meaning as the SQLite store
// (sqlite/migrations.ts); timestamps are epoch milliseconds (BIGINT), JSON is kept as the text written.
import type { Migration } from '../sqlite/migrations.js';

/** Every migration of the PostgreSQL store, by version. */
export const POSTGRES_MIGRATIONS: readonly Migration[] = [
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
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  ended_at BIGINT
);
CREATE INDEX runs_by_created ON runs (created_at DESC, id DESC);
CREATE INDEX runs_by_status ON runs (status);

CREATE TABLE run_owners (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  pid INTEGER NOT NULL,
  host TEXT NOT NULL,
  started_at BIGINT NOT NULL,
  heartbeat_at BIGINT NOT NULL,
  ended_at BIGINT,
  PRIMARY KEY (run_id, seq)
);
CREATE UNIQUE INDEX run_owners_one_open ON run_owners (run_id) WHERE ended_at IS NULL;

CREATE TABLE iterations (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  number INTEGER NOT NULL CHECK (number >= 1),
  agent TEXT NOT NULL,
  status TEXT NOT NULL,
  started_at BIGINT NOT NULL,
  completed_at BIGINT,
  duration_ms BIGINT,
  exit_code INTEGER,
  exit_signal TEXT,
  tokens_in BIGINT,
  tokens_out BIGINT,
  cache_read BIGINT,
  cache_write BIGINT,
  cost_usd DOUBLE PRECISION,
  completion_signal_found BOOLEAN NOT NULL DEFAULT FALSE,
  failure_signal_found BOOLEAN NOT NULL DEFAULT FALSE,
  error_kind TEXT,
  error_message TEXT,
  session_id TEXT,
  model TEXT,
  log_path TEXT,
  PRIMARY KEY (run_id, number)
);
CREATE INDEX iterations_by_started ON iterations (started_at);
CREATE INDEX iterations_running ON iterations (run_id) WHERE status = 'running';

CREATE TABLE events (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  at BIGINT NOT NULL,
  type TEXT NOT NULL,
  iteration INTEGER,
  payload_json TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);

CREATE TABLE checkpoints (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  iteration INTEGER NOT NULL,
  commit_sha TEXT,
  state TEXT NOT NULL,
  message TEXT,
  created_at BIGINT NOT NULL
);
CREATE INDEX checkpoints_by_run ON checkpoints (run_id, id);

CREATE TABLE errors (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  iteration INTEGER,
  kind TEXT NOT NULL,
  message TEXT NOT NULL,
  context_json TEXT,
  created_at BIGINT NOT NULL
);
CREATE INDEX errors_by_run ON errors (run_id, id);
`,
  },
  {
    version: 2,
    name: 'run kind and metadata, iteration units, checkpoint snapshots, control requests, imports, global event ids, notifications',
    sql: `
ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'prompt';
ALTER TABLE runs ADD COLUMN meta_json TEXT NOT NULL DEFAULT '{}';
ALTER TABLE runs ADD COLUMN origin TEXT NOT NULL DEFAULT 'cli';
CREATE INDEX runs_by_workspace ON runs (workspace, created_at DESC);

ALTER TABLE iterations ADD COLUMN unit_id TEXT;

ALTER TABLE checkpoints ADD COLUMN snapshot_json TEXT;

CREATE TABLE control_requests (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  action TEXT NOT NULL CHECK (action IN ('pause', 'resume', 'stop', 'extend')),
  options_json TEXT NOT NULL DEFAULT '{}',
  requested_by TEXT,
  requested_at BIGINT NOT NULL,
  handled_at BIGINT,
  result TEXT
);
CREATE INDEX control_requests_pending ON control_requests (run_id, id) WHERE handled_at IS NULL;

CREATE TABLE imports (
  path TEXT PRIMARY KEY,
  imported_at BIGINT NOT NULL,
  runs INTEGER NOT NULL
);

-- The global insertion order of events ("every event since id N"): appendEvent assigns it under a
-- transaction-scoped advisory lock, so ids become visible in increasing order (no reader skips one).
ALTER TABLE events ADD COLUMN id BIGINT GENERATED ALWAYS AS IDENTITY;
CREATE UNIQUE INDEX events_by_id ON events (id);

-- Every new event and control request is announced (delivered at commit, in commit order) to LISTENers:
-- servers relay events live, run owners pick up pause / resume / stop at once.
CREATE FUNCTION ringmaster_notify_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('ringmaster_events', json_build_object('id', NEW.id, 'run_id', NEW.run_id, 'seq', NEW.seq)::text);
  RETURN NULL;
END $$;
CREATE TRIGGER events_notify AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION ringmaster_notify_event();

CREATE FUNCTION ringmaster_notify_control() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('ringmaster_control', json_build_object('id', NEW.id, 'run_id', NEW.run_id, 'action', NEW.action)::text);
  RETURN NULL;
END $$;
CREATE TRIGGER control_requests_notify AFTER INSERT ON control_requests FOR EACH ROW EXECUTE FUNCTION ringmaster_notify_control();
`,
  },
  {
    version: 3,
    name: 'owner lease renewals by the database clock, shared settings',
    sql: `
-- The database server's clock in epoch milliseconds: leases are renewed and judged by it alone, so the clocks of
-- the machines that run servers and workers are never compared.
CREATE FUNCTION ringmaster_now_ms() RETURNS BIGINT LANGUAGE sql VOLATILE AS $$
  SELECT (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT
$$;
-- When the owner last renewed its lease (heartbeat or fenced write), by ringmaster_now_ms().
ALTER TABLE run_owners ADD COLUMN renewed_at BIGINT;

-- Settings every server and worker of this database shares (e.g. queue.max_concurrent, the global limit).
CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at BIGINT NOT NULL
);
`,
  },
  {
    version: 4,
    name: 'what each iteration changed: trees before and after, files changed, the ref of a discarded attempt',
    sql: `
ALTER TABLE iterations ADD COLUMN tree_before TEXT;
ALTER TABLE iterations ADD COLUMN tree_after TEXT;
-- JSON array of {path, change} (the first 1,000) as text (read back like SQLite's), and the count of every changed path.
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
  daily_notice_start BIGINT,
  monthly_notice INTEGER,
  monthly_notice_start BIGINT,
  daily_usd DOUBLE PRECISION,
  monthly_usd DOUBLE PRECISION,
  updated_at BIGINT NOT NULL
);
`,
  },
  {
    version: 7,
    name: 'notes to a run; note control requests',
    sql: `
-- A person's message to a run, delivered once in the prompt of the next iteration that starts (docs/notes.md).
CREATE TABLE notes (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  text TEXT NOT NULL,
  created_by TEXT,
  created_at BIGINT NOT NULL,
  delivered_iteration INTEGER,
  delivered_at BIGINT,
  cancelled_at BIGINT
);
CREATE INDEX notes_by_run ON notes (run_id, id);

-- The owner of a run announces a new note (note_added) on a 'note' request.
ALTER TABLE control_requests DROP CONSTRAINT control_requests_action_check;
ALTER TABLE control_requests ADD CONSTRAINT control_requests_action_check CHECK (action IN ('pause', 'resume', 'stop', 'extend', 'note'));
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
  updated_at BIGINT NOT NULL
);
`,
  },
];
