// Every configuration key as one zod schema (value type inferred from it), with its default, its flag and how
// `config show` prints it. The same schemas validate YAML files, env variables and flags, and give the JSON Schema.
// Each schema is built on first use (config/lazy-schemas.ts); a run takes the values nobody set from DEFAULTS.
import { z } from 'zod';
import { formatDuration } from '../core/duration.js';
import { formatByteSize } from '../core/byte-size.js';
import { DEFAULT_FAILURE_SIGNAL, DEFAULT_SUCCESS_SIGNALS } from '../core/signals.js';
import { priceOverridesSchema } from '../agents/price-schema.js';
import { hooksSectionSchema } from './hooks.js';
import { lazy, schemaOf, sectionSchema, type SectionSchema, type Thunks } from './lazy-schemas.js';
import { redactUrl, redactWebhookUrl } from '../core/url.js';
import { DEFAULT_NOTIFY_ON, NOTIFY_EVENTS } from '../core/notify-events.js';
import { byteSize, duration, flag, flagOrText, money, oneOf, optionalArgv, optionalCount, optionalDuration, optionalHttpUrl, optionalText, postgresUrl, stringList, text, webhookList, wholeNumber, wordList, type Webhook } from './value-schemas.js';

/** `loop.*`: limits and pacing of a run. Defaults are given as a user would write them. */
export const loopSettings = {
  default_max_iterations: () => wholeNumber(1).prefault(5).describe('iterations when neither --max-iterations, --unlimited nor the procedure says'),
  failure_threshold: () => wholeNumber(1).prefault(3).describe('consecutive failed iterations before the run aborts'),
  max_runtime: () => optionalDuration().prefault('none').describe("wall-clock budget of the run (after a resume: plus the time the earlier iterations ran)"),
  max_cost: () => money().prefault('none').describe('cost budget of the whole run in USD (across resumes; an agent that spends it mid-iteration is stopped)'),
  cooldown: () => duration().prefault('0s').describe('pause between iterations'),
  backoff: () => duration().prefault('2s').describe('first delay after a failed iteration; doubles per consecutive failure (2^n s: 2, 4, 8, 16...)'),
  backoff_max: () => duration().prefault('60s').describe('cap of the failure backoff'),
  overload_retries: () => wholeNumber(0)
    .prefault(10)
    .describe("overloaded answers (HTTP 5xx, 529) retried in a row, waiting 2, 4, 8... up to backoff_max seconds between them, before the next one is a failure"),
  idle_timeout: () => optionalDuration().prefault('30m').describe('kill an iteration with no output for this long'),
  iteration_timeout: () => optionalDuration().prefault('none').describe('kill an iteration running longer than this'),
  kill_grace: () => duration().prefault('3s').describe('time between SIGTERM and SIGKILL when stopping an agent'),
  checkpoint_interval: () => wholeNumber(0).prefault(5).describe('git checkpoint every N iterations (0 = off)'),
  completion_signals: () => stringList('comma').prefault([...DEFAULT_SUCCESS_SIGNALS]).describe('texts that end the run with success'),
  failure_signal: () => text().prefault(DEFAULT_FAILURE_SIGNAL).describe('text that marks an iteration as failed'),
  prompt_file: () => text().prefault('PROMPT.md').describe('prompt file when no --prompt or --procedure is given'),
  fresh_context: () => flag().prefault(true).describe('fresh agent session every iteration (false resumes the previous session)'),
  track_changes: () => flag().prefault(true).describe('in a git workspace, record the files each iteration added, modified and deleted (files_changed)'),
  discard_failed: () => flag().prefault(false).describe("discard a failed iteration's file changes (kept under refs/ringmaster/discarded/<run>/<n>) before the next iteration"),
  verify: () => optionalText().prefault(null).describe("a command that must exit 0 before a claimed completion ends the run (split like agent.command, no shell)"),
  verify_timeout: () => duration().prefault('10m').describe('time limit of the verify command (killed with its process group past it)'),
  verify_each: () => flag().prefault(false).describe('run the verify command after every iteration, not only when the agent claims completion'),
  budget_poll: () => duration().prefault('10s').describe('how often a run held back by the shared budget (ringmaster budget) looks at the store again'),
  no_progress_after: () => wholeNumber(0)
    .prefault(0)
    .describe('in a git workspace, stop the run (no_progress) after N iterations in a row that changed no file (0 = off; needs track_changes)'),
  max_log_size: () => byteSize().prefault('100MiB').describe("largest iteration log: past it the log keeps its first and last bytes around a marker ('none' = no cap)"),
};

/** `tasks.*`: task loops (`ringmaster tasks run`): where the tasks come from and the per-task limits. */
export const tasksSettings = {
  file: () => optionalText().prefault(null).describe("task file of 'tasks run' when none is named (default: the first of tasks.jsonl, prd.json, TODO.md)"),
  command: () => optionalArgv().prefault(null).describe('a program that prints the task list as JSON (instead of a task file)'),
  status_command: () => optionalArgv().prefault(null).describe('a program told each status change of a command source: <argv> <task id> <status>'),
  command_timeout: () => duration().prefault('60s').describe('time limit of one run of tasks.command or tasks.status_command'),
  prompt_template: () => optionalText().prefault(null).describe('file with the task prompt template (default: the built-in one)'),
  max_iterations_per_task: () => wholeNumber(1).prefault(10).describe('iterations one task may use before it is blocked'),
  max_runtime_per_task: () => optionalDuration().prefault('30m').describe('time one task may use before it is blocked'),
  max_cost_per_task: () => money().prefault(5).describe('cost in USD one task may use before it is blocked'),
  max_tasks: () => wholeNumber(1).prefault(50).describe('tasks one run may start'),
  max_runtime: () => optionalDuration().prefault('4h').describe('wall-clock budget of a task run (unless loop.max_runtime is set)'),
  max_cost: () => money().prefault(50).describe('cost budget of a task run in USD (unless loop.max_cost is set)'),
  on_failure: () => oneOf(['continue', 'stop']).prefault('continue').describe("after a task is blocked: 'continue' with the next task or 'stop' the run"),
  parallelism: () => wholeNumber(1).prefault(1).describe('independent tasks at once, each in its own git worktree, merged back in the order they started'),
  rollback_failed_iterations: () => flag().prefault(false).describe('alias of loop.discard_failed (either one turns it on)'),
  check_timeout: () => duration().prefault('10m').describe('time limit of a test command or validation script'),
  hook_timeout: () => duration().prefault('10s').describe('time limit of one hook command'),
};

/** `agent.*`: which agent CLI runs and how. */
export const agentSettings = {
  name: () => text().prefault('claude').describe('agent CLI to run'),
  command: () => optionalArgv().prefault(null).describe('argv of the command agent'),
  model: () => optionalText().prefault(null).describe('model passed to the agent CLI'),
  args: () => stringList('shell').prefault([]).describe('extra arguments appended to the agent command line'),
  fallback: () => stringList('comma').prefault([]).describe('agents to switch to, in order, when the current one hits a usage or rate limit'),
  permission_mode: () => oneOf(['bypass', 'default']).prefault('bypass').describe("'bypass' lets the agent act without asking (unattended loops); 'default' keeps the CLI's prompts"),
  auto_install: () => flagOrText()
    .prefault(false)
    .describe('install an agent CLI missing from PATH with npm into the data directory (agents/<name>), never globally: true, or the npm package spec to install (a pinned version, a tarball)'),
};

/** `sandbox.*`: the OS sandbox every iteration's agent runs in (docs/sandbox.md). */
export const sandboxSettings = {
  enabled: () => flag().prefault(false).describe("run every iteration's agent in an OS sandbox (bubblewrap): the workspace writable, the rest of the host read-only, secrets hidden"),
  network: () => oneOf(['agent', 'none', 'all', 'packages']).prefault('agent').describe("what a sandboxed agent may reach: 'agent' (its model API, base URLs in the environment, sandbox.allow_hosts), 'packages' (that and the package registries), 'none', 'all'"),
  hide: () => stringList('comma').prefault([]).describe('paths hidden from the agent besides ~/.ssh, ~/.aws, ~/.gnupg, ~/.config/gh, ~/.netrc, ~/.docker, ~/.kube and the data directory'),
  allow_write: () => stringList('comma').prefault([]).describe('paths the agent may write besides the workspace and its own state (~/.claude...)'),
  allow_hosts: () => stringList('comma').prefault([]).describe("hosts the agent may reach besides its own (ports 80 and 443; '*.example.com' for subdomains)"),
  memory: () => byteSize().prefault('none').describe('memory cap of one sandboxed agent and everything it starts (cgroup v2)'),
  pids: () => optionalCount().prefault('none').describe('process cap of one sandboxed agent (cgroup v2)'),
};

/** `manager.defaults.*`: the run settings of server-created runs where only a built-in default applies. */
export const managerDefaultsSettings = {
  max_iterations: () => wholeNumber(1).prefault(100).describe('iteration limit of runs created through the server when neither the request nor the config sets one'),
  max_runtime: () => optionalDuration().prefault('4h').describe('max runtime of server-created runs unless set (default 4h)'),
  max_cost: () => money().prefault(300).describe('cost budget of server-created runs unless set (default $300)'),
  checkpoint_interval: () => wholeNumber(0).prefault(5).describe('checkpoint interval of server-created runs unless set'),
  cooldown: () => duration().prefault('5s').describe('cooldown of server-created runs unless set (default 5s)'),
  failure_threshold: () => wholeNumber(1).prefault(5).describe("circuit breaker of server-created runs unless set (default 5)"),
  backoff: () => duration().prefault('2s').describe('first failure backoff of server-created runs unless set (default 2s: waits of 2, 4, 8, 16 s...)'),
};

/** `manager.*`: how `ringmaster serve` drives runs. */
export const managerSettings = {
  max_concurrent: () => wholeNumber(1).prefault(5).describe("runs 'ringmaster serve' drives at once; more are queued (pending), first in first out"),
  iteration_threads: () => wholeNumber(0).prefault(2).describe("helper processes that run the agents of 'ringmaster serve' and 'ringmaster worker' (0: the server's own process)"),
  resume_on_start: () => flag().prefault(true).describe("'ringmaster serve' resumes the runs it was driving when it stopped or died; false marks them stopped (interrupted) to resume by hand"),
  defaults: () => managerDefaultsSchema().prefault({}).describe('settings of runs created through the server, used where only a built-in default applies'),
};

/** `server.*`: where `ringmaster serve` listens. */
export const serverSettings = {
  host: () => text().prefault('127.0.0.1').describe("address 'ringmaster serve' binds; anything but loopback requires a token"),
  port: () => wholeNumber(0).prefault(7420).describe("port of 'ringmaster serve'"),
  public_url: () => optionalHttpUrl().prefault(null).describe("base of the links to runs in notifications (default: http://<server.host>:<server.port>)"),
};

/** `notify.*`: who hears about a run's end, a limit or a wait (README.md#notifications). */
export const notifySettings = {
  on: () => wordList(NOTIFY_EVENTS).prefault([...DEFAULT_NOTIFY_ON]).describe(`events that notify, some of: ${NOTIFY_EVENTS.join(', ')}`),
  webhooks: () => webhookList()
    .prefault([])
    .describe('webhooks told of each event: {url, format: slack | discord | ntfy | json}; secrets: only in the user config or RINGMASTER_NOTIFY_WEBHOOKS, never in ringmaster.yml'),
  command: () => optionalArgv().prefault(null).describe('a program given each notification as JSON on stdin (an argv list, never a shell line)'),
};

/** `database.*`: the store every command uses. */
export const databaseSettings = {
  url: () => postgresUrl()
    .prefault(null)
    .describe('PostgreSQL store shared by many machines (postgres://user:password@host:5432/db); unset: SQLite in the data directory'),
};

/** `worker.*`: how `ringmaster worker` takes runs from the queue (its flags override them). */
export const workerSettings = {
  concurrency: () => wholeNumber(1).prefault(1).describe("runs one 'ringmaster worker' drives at once (--concurrency)"),
  workdir: () => optionalText().prefault(null).describe("where 'ringmaster worker' keeps its clones and repository caches (--workdir; default <data directory>/worker)"),
};

/** `manager.defaults` as one schema (the `defaults` key of `manager`). */
export const managerDefaultsSchema = sectionSchema(managerDefaultsSettings);
/** The schema of each section, built on first use. */
export const loopSchema = sectionSchema(loopSettings);

/** The scalar settings by section: add a section here (and its keys to SETTING_INFO and DEFAULTS) to add keys. */
const SECTION_SETTINGS = {
  loop: loopSettings,
  tasks: tasksSettings,
  agent: agentSettings,
  manager: managerSettings,
  server: serverSettings,
  database: databaseSettings,
  worker: workerSettings,
  notify: notifySettings,
  sandbox: sandboxSettings,
} as const;

type SectionSchemas = { [S in keyof typeof SECTION_SETTINGS]: SectionSchema<(typeof SECTION_SETTINGS)[S]> };

/** Each section's schema (all its keys'), built on first use. */
export const SECTIONS: { readonly [S in keyof SectionSchemas]: () => SectionSchemas[S] } = {
  loop: loopSchema,
  tasks: sectionSchema(tasksSettings),
  agent: sectionSchema(agentSettings),
  manager: sectionSchema(managerSettings),
  server: sectionSchema(serverSettings),
  database: sectionSchema(databaseSettings),
  worker: sectionSchema(workerSettings),
  notify: sectionSchema(notifySettings),
  sandbox: sectionSchema(sandboxSettings),
};

/** Groups of keys nested inside a section (a mapping in YAML, `_` in env names), by their full key. */
const GROUPS: Readonly<Record<string, Thunks>> = { 'manager.defaults': managerDefaultsSettings };

/** All scalar settings, defaults applied (their parse of `{}` is DEFAULTS, config/defaults.ts). */
export const settingsSchema = lazy(() => z.strictObject(Object.fromEntries(Object.entries(SECTIONS).map(([name, schema]) => [name, schema()])) as SectionSchemas));

/** The resolved scalar settings, typed from the schemas. */
export type Settings = z.output<z.ZodObject<SectionSchemas, z.core.$strict>>;

/** A section of scalar settings. */
export type SectionName = keyof typeof SECTION_SETTINGS;

type Scalar = string | number | boolean | null | readonly unknown[];
/** The dotted keys of the leaves of a settings object (groups are walked into). */
type LeafKeys<T, Prefix extends string> = {
  [K in Extract<keyof T, string>]: T[K] extends Scalar ? `${Prefix}${K}` : LeafKeys<T[K], `${Prefix}${K}.`>;
}[Extract<keyof T, string>];

/** A setting's full key, e.g. `loop.max_cost` or `manager.defaults.max_cost`. */
export type SettingKey = LeafKeys<Settings, ''>;

/** A procedure: four phase files (relative to the config file) and its own iteration default. */
const procedureSchema = () =>
  z.strictObject({
    observe: text().describe('file of the OBSERVE phase (relative to this config file)'),
    orient: text().describe('file of the ORIENT phase'),
    decide: text().describe('file of the DECIDE phase'),
    act: text().describe('file of the ACT phase'),
    default_max_iterations: wholeNumber(1).optional().describe("this procedure's iteration default"),
  });

/** A whole config file (ringmaster.yml or the global config.yml): every section optional. Built on first use. */
export const configFileSchema = lazy(() =>
  z
    .strictObject({
      ...(Object.fromEntries(Object.entries(SECTIONS).map(([name, schema]) => [name, schema().optional()])) as { [S in SectionName]: z.ZodOptional<SectionSchemas[S]> }),
      procedures: z.record(z.string(), procedureSchema()).optional().describe('your own OODA procedures, by name (--procedure NAME)'),
      prices: priceOverridesSchema.optional().describe('price overrides in USD per million tokens, by model (override data/prices.json)'),
      hooks: hooksSectionSchema.optional().describe("shell commands run at the task loop's lifecycle events (task_start, iteration_start, action, iteration_end, task_end, anomaly)"),
    })
    .describe('Ringmaster configuration (ringmaster.yml, or $XDG_CONFIG_HOME/ringmaster/config.yml)'),
);

/** The names of the top-level sections a config file may have. */
export const FILE_SECTIONS: readonly string[] = [...Object.keys(SECTION_SETTINGS), 'procedures', 'prices', 'hooks'];

/** How a setting shows in `config show`, and the flag of `ringmaster run` that sets it. */
interface SettingInfo {
  flag?: string;
  format(value: unknown): string;
}

const plain = (v: unknown): string => (v === null ? 'none' : typeof v === 'string' ? v : JSON.stringify(v));
const asDuration = (v: unknown): string => (typeof v === 'number' ? formatDuration(v) : plain(v));
const asUsd = (v: unknown): string => (typeof v === 'number' ? `$${v}` : plain(v));
const asBytes = (v: unknown): string => (typeof v === 'number' ? formatByteSize(v) : plain(v));
const asModel = (v: unknown): string => (v === null ? 'agent default' : plain(v));

/** Flag and display of every setting; the compiler checks every key has an entry. */
export const SETTING_INFO: Readonly<Record<SettingKey, SettingInfo>> = {
  'loop.default_max_iterations': { format: plain },
  'loop.failure_threshold': { flag: '--failure-threshold', format: plain },
  'loop.max_runtime': { flag: '--max-runtime', format: asDuration },
  'loop.max_cost': { flag: '--max-cost', format: asUsd },
  'loop.cooldown': { flag: '--cooldown', format: asDuration },
  'loop.backoff': { format: asDuration },
  'loop.backoff_max': { format: asDuration },
  'loop.overload_retries': { format: plain },
  'loop.idle_timeout': { flag: '--idle-timeout', format: asDuration },
  'loop.iteration_timeout': { flag: '--iteration-timeout', format: asDuration },
  'loop.kill_grace': { format: asDuration },
  'loop.checkpoint_interval': { flag: '--checkpoint-interval', format: plain },
  'loop.completion_signals': { format: plain },
  'loop.failure_signal': { format: plain },
  'loop.prompt_file': { flag: '--prompt-file', format: plain },
  'loop.fresh_context': { format: plain },
  'loop.track_changes': { format: plain },
  'loop.discard_failed': { format: plain },
  'loop.max_log_size': { format: asBytes },
  'loop.budget_poll': { format: asDuration },
  'loop.verify': { flag: '--verify', format: (v) => (v === null ? 'none' : plain(v)) },
  'loop.verify_timeout': { flag: '--verify-timeout', format: asDuration },
  'loop.verify_each': { flag: '--verify-each', format: plain },
  'loop.no_progress_after': { flag: '--no-progress-after', format: (v) => (v === 0 ? 'off' : plain(v)) },
  'tasks.file': { format: (v) => (v === null ? 'first of tasks.jsonl, prd.json, TODO.md' : plain(v)) },
  'tasks.command': { format: plain },
  'tasks.status_command': { format: plain },
  'tasks.command_timeout': { format: asDuration },
  'tasks.prompt_template': { format: (v) => (v === null ? 'built-in' : plain(v)) },
  'tasks.max_iterations_per_task': { format: plain },
  'tasks.max_runtime_per_task': { format: asDuration },
  'tasks.max_cost_per_task': { format: asUsd },
  'tasks.max_tasks': { format: plain },
  'tasks.max_runtime': { format: asDuration },
  'tasks.max_cost': { format: asUsd },
  'tasks.on_failure': { format: plain },
  'tasks.parallelism': { format: plain },
  'tasks.rollback_failed_iterations': { format: plain },
  'tasks.check_timeout': { format: asDuration },
  'tasks.hook_timeout': { format: asDuration },
  'agent.name': { flag: '--agent', format: plain },
  'agent.command': { flag: '--agent-command', format: plain },
  'agent.model': { flag: '--model', format: asModel },
  'agent.args': { format: plain },
  'agent.fallback': { format: plain },
  'agent.permission_mode': { format: plain },
  'agent.auto_install': { format: plain },
  'manager.max_concurrent': { format: plain },
  'manager.iteration_threads': { format: plain },
  'manager.resume_on_start': { format: plain },
  'manager.defaults.max_iterations': { format: plain },
  'manager.defaults.max_runtime': { format: asDuration },
  'manager.defaults.max_cost': { format: asUsd },
  'manager.defaults.checkpoint_interval': { format: plain },
  'manager.defaults.cooldown': { format: asDuration },
  'manager.defaults.failure_threshold': { format: plain },
  'manager.defaults.backoff': { format: asDuration },
  'server.host': { format: plain },
  'server.port': { format: plain },
  'server.public_url': { format: (v) => (v === null ? 'http://<server.host>:<server.port>' : plain(v)) },
  'notify.on': { format: (v) => (Array.isArray(v) ? v.join(', ') : plain(v)) },
  'notify.webhooks': { format: (v) => (Array.isArray(v) ? (v.length === 0 ? 'none' : (v as Webhook[]).map((w) => `${w.format} ${redactWebhookUrl(w.url)}`).join(', ')) : plain(v)) },
  'notify.command': { format: plain },
  'database.url': { format: (v) => (typeof v === 'string' ? redactUrl(v) : 'none (SQLite in the data directory)') },
  'worker.concurrency': { format: plain },
  'worker.workdir': { format: (v) => (v === null ? '<data directory>/worker' : plain(v)) },
  'sandbox.enabled': { flag: '--sandbox', format: plain },
  'sandbox.network': { flag: '--sandbox-network', format: plain },
  'sandbox.hide': { format: plain },
  'sandbox.allow_write': { format: plain },
  'sandbox.allow_hosts': { format: plain },
  'sandbox.memory': { format: asBytes },
  'sandbox.pids': { format: plain },
};

/** True for the name of a section of scalar settings. */
export function isSectionName(name: string): name is SectionName {
  return Object.hasOwn(SECTION_SETTINGS, name);
}

/** True for the full key of a setting. */
export function isSettingKey(key: string): key is SettingKey {
  return Object.hasOwn(SETTING_INFO, key);
}

/** One setting as the loaders walk them: its path (section, group..., name), full key and schema. */
export interface SettingEntry {
  section: SectionName;
  /** Section, groups and name: `['manager', 'defaults', 'max_cost']`. */
  path: readonly string[];
  /** The last part of the path. */
  name: string;
  key: SettingKey;
  /** Built on first use (config/lazy-schemas.ts). */
  readonly schema: z.ZodType;
  readonly description: string;
}

function entriesOf(section: SectionName, path: readonly string[], thunks: Thunks): SettingEntry[] {
  const out: SettingEntry[] = [];
  for (const [name, thunk] of Object.entries(thunks)) {
    const at = [...path, name];
    const key = at.join('.');
    const group = GROUPS[key];
    if (group) out.push(...entriesOf(section, at, group));
    else if (isSettingKey(key)) {
      out.push({
        section,
        path: at,
        name,
        key,
        get schema() {
          return schemaOf(thunk);
        },
        get description() {
          return schemaOf(thunk).description ?? '';
        },
      });
    }
  }
  return out;
}

/** Every scalar setting, in the order `config show` prints them. */
export const SETTINGS: readonly SettingEntry[] = Object.keys(SECTION_SETTINGS)
  .filter(isSectionName)
  .flatMap((section) => entriesOf(section, [section], SECTION_SETTINGS[section]));

/** True for the full key of a group of settings (a nested mapping such as `manager.defaults`). */
export function isGroupKey(key: string): boolean {
  return Object.hasOwn(GROUPS, key);
}

/** The names directly inside a section or group (settings and groups), for "did you mean" hints. */
export function namesUnder(prefix: string): string[] {
  const depth = prefix.split('.').length;
  const names = SETTINGS.filter((s) => s.key.startsWith(`${prefix}.`)).map((s) => s.path[depth] ?? '');
  return [...new Set(names)];
}

/** The JSON Schema (draft 2020-12) of a config file, for editors' completion and validation. */
export function configJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(configFileSchema(), { io: 'input', unrepresentable: 'any' });
}

/** The setting a flag of `ringmaster run` sets (e.g. `--max-cost`), or undefined. */
export function settingOfFlag(flag: string): SettingEntry | undefined {
  return SETTINGS.find((s) => SETTING_INFO[s.key].flag === flag);
}

/** Checks a setting's value as text (a flag's or an env variable's): the problem, or null when it is valid. */
export function settingProblem(entry: SettingEntry, raw: string): string | null {
  const parsed = entry.schema.safeParse(raw);
  return parsed.success ? null : (parsed.error.issues[0]?.message ?? 'invalid value');
}

/** Formats a setting's value for `config show`. */
export function formatSetting(key: SettingKey, value: unknown): string {
  return SETTING_INFO[key].format(value);
}
