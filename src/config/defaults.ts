// The built-in value of every setting as the runner uses it (durations in ms, sizes in bytes, 'none' as null):
// what settingsSchema() gives for `{}`, written out so that loading the config builds no schema for a setting
// nobody set (config/lazy-schemas.ts). test/config/defaults.test.ts checks it against the schemas' own defaults
// (the `.prefault(...)` of each key, which the JSON Schema shows), so the two cannot drift apart.
import { DEFAULT_NOTIFY_ON } from '../core/notify-events.js';
import { DEFAULT_FAILURE_SIGNAL, DEFAULT_SUCCESS_SIGNALS } from '../core/signals.js';
import type { Settings } from './settings.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Every setting's built-in value, parsed. Frozen: loadConfig copies it. */
export const DEFAULTS: Readonly<Settings> = deepFreeze({
  loop: {
    default_max_iterations: 5,
    failure_threshold: 3,
    max_runtime: null,
    max_cost: null,
    cooldown: 0,
    backoff: 2 * SECOND,
    backoff_max: 60 * SECOND,
    overload_retries: 10,
    idle_timeout: 30 * MINUTE,
    iteration_timeout: null,
    kill_grace: 3 * SECOND,
    checkpoint_interval: 5,
    completion_signals: [...DEFAULT_SUCCESS_SIGNALS],
    failure_signal: DEFAULT_FAILURE_SIGNAL,
    prompt_file: 'PROMPT.md',
    fresh_context: true,
    track_changes: true,
    discard_failed: false,
    verify: null,
    verify_timeout: 10 * MINUTE,
    verify_each: false,
    budget_poll: 10 * SECOND,
    no_progress_after: 0,
    max_log_size: 100 * 1024 * 1024,
  },
  tasks: {
    file: null,
    command: null,
    status_command: null,
    command_timeout: 60 * SECOND,
    prompt_template: null,
    max_iterations_per_task: 10,
    max_runtime_per_task: 30 * MINUTE,
    max_cost_per_task: 5,
    max_tasks: 50,
    max_runtime: 4 * HOUR,
    max_cost: 50,
    on_failure: 'continue',
    parallelism: 1,
    rollback_failed_iterations: false,
    check_timeout: 10 * MINUTE,
    hook_timeout: 10 * SECOND,
  },
  agent: {
    name: 'claude',
    command: null,
    model: null,
    args: [],
    fallback: [],
    permission_mode: 'bypass',
    auto_install: false,
  },
  manager: {
    max_concurrent: 5,
    iteration_threads: 2,
    resume_on_start: true,
    defaults: {
      max_iterations: 100,
      max_runtime: 4 * HOUR,
      max_cost: 300,
      checkpoint_interval: 5,
      cooldown: 5 * SECOND,
      failure_threshold: 5,
      backoff: 2 * SECOND,
    },
  },
  server: { host: '127.0.0.1', port: 7420, public_url: null },
  database: { url: null },
  worker: { concurrency: 1, workdir: null },
  notify: { on: [...DEFAULT_NOTIFY_ON], webhooks: [], command: null },
  sandbox: {
    enabled: false,
    network: 'agent',
    hide: [],
    allow_write: [],
    allow_hosts: [],
    memory: null,
    pids: null,
  },
});

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
