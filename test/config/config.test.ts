// Configuration layering (flags > env > workspace > global > built-in), seed 001's max-iterations order, errors.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveRun } from '../../src/spec/resolve.js';
import { backoffMs } from '../../src/core/decide.js';
import { cleanEnv, ROOT, runCli, tempDir } from '../helpers/cli.js';

let dir: string;
let home: string;
let cleanups: Array<() => void>;
beforeEach(() => {
  const a = tempDir();
  const b = tempDir('ringmaster-xdg-');
  dir = a.dir;
  home = b.dir;
  cleanups = [a.cleanup, b.cleanup];
  writeFileSync(join(dir, 'PROMPT.md'), 'p\n');
});
afterEach(() => cleanups.forEach((c) => c()));

function writeGlobal(text: string): string {
  mkdirSync(join(home, 'ringmaster'), { recursive: true });
  const file = join(home, 'ringmaster', 'config.yml');
  writeFileSync(file, text);
  return file;
}

const env = (extra: Record<string, string> = {}) => ({ XDG_CONFIG_HOME: home, ...extra });

describe('precedence', () => {
  it('flag > env > workspace > global > built-in, with the source of each value', () => {
    const globalFile = writeGlobal('loop:\n  failure_threshold: 7\n  cooldown: 10s\n  max_cost: 3\n  idle_timeout: 2m\n');
    writeFileSync(join(dir, 'ringmaster.yml'), 'loop:\n  cooldown: 20s\n  max_cost: 4\n  idle_timeout: 3m\n');
    const { spec, config } = resolveRun(dir, env({ RINGMASTER_LOOP_MAX_COST: '5', RINGMASTER_LOOP_IDLE_TIMEOUT: '4m' }), {
      settings: [{ key: 'loop.idle_timeout', flag: '--idle-timeout', raw: '5m' }],
    });
    expect(spec.limits.failureThreshold).toBe(7);
    expect(config.sources.get('loop.failure_threshold')).toBe(globalFile);
    expect(spec.limits.cooldownMs).toBe(20_000);
    expect(config.sources.get('loop.cooldown')).toBe(join(dir, 'ringmaster.yml'));
    expect(spec.limits.maxCostUsd).toBe(5);
    expect(config.sources.get('loop.max_cost')).toBe('env RINGMASTER_LOOP_MAX_COST');
    expect(spec.idleTimeoutMs).toBe(300_000);
    expect(config.sources.get('loop.idle_timeout')).toBe('flag --idle-timeout');
    expect(spec.limits.maxRuntimeMs).toBeNull();
    expect(config.sources.get('loop.max_runtime')).toBe('built-in');
  });

  it('max iterations: --max-iterations > --unlimited > procedure default > loop.default_max_iterations > 5', () => {
    expect(resolveRun(dir, env(), { settings: [] }).maxIterations).toEqual({ value: 5, source: 'built-in' });
    writeGlobal('loop:\n  default_max_iterations: 8\n');
    expect(resolveRun(dir, env(), { settings: [] }).maxIterations.value).toBe(8);
    expect(resolveRun(dir, env({ RINGMASTER_LOOP_DEFAULT_MAX_ITERATIONS: '9' }), { settings: [] }).maxIterations).toEqual({ value: 9, source: 'env RINGMASTER_LOOP_DEFAULT_MAX_ITERATIONS' });
    expect(resolveRun(dir, env(), { settings: [], procedure: 'build' }).maxIterations).toEqual({ value: 10, source: 'procedure build default_max_iterations' });
    expect(resolveRun(dir, env(), { settings: [], procedure: 'build', unlimited: true }).maxIterations).toEqual({ value: null, source: 'flag --unlimited' });
    expect(resolveRun(dir, env(), { settings: [], procedure: 'build', unlimited: true, maxIterations: '2' }).maxIterations).toEqual({ value: 2, source: 'flag --max-iterations' });
  });

  it('config show prints every value with its source', async () => {
    writeFileSync(join(dir, 'ringmaster.yml'), 'agent:\n  name: command\n  command: ["my-agent", "--x"]\nloop:\n  max_runtime: 4h\n');
    const r = await runCli(['config', 'show', '--max-cost', '12.5'], { cwd: dir, env: cleanEnv(env()) });
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n').map((l) => l.replace(/\s+/g, ' ').trim());
    expect(lines).toContain('max_iterations 5 (built-in)');
    expect(lines).toContain(`loop.max_runtime 4h (${join(dir, 'ringmaster.yml')})`);
    expect(lines).toContain('loop.max_cost $12.5 (flag --max-cost)');
    expect(lines).toContain(`agent.command ["my-agent","--x"] (${join(dir, 'ringmaster.yml')})`);
    expect(lines).toContain('loop.failure_threshold 3 (built-in)');
  });
});

describe('manager and server settings', () => {
  it('nested manager.defaults from a file, env and flags; server-created runs take them where only a built-in default applies', () => {
    const file = join(dir, 'ringmaster.yml');
    writeFileSync(file, 'manager:\n  max_concurrent: 2\n  defaults:\n    max_cost: 40\n    cooldown: 2s\n    backoff: 3s\nloop:\n  failure_threshold: 9\nserver:\n  port: 8000\n');
    const e = env({ RINGMASTER_MANAGER_DEFAULTS_MAX_ITERATIONS: '30', RINGMASTER_SERVER_HOST: '0.0.0.0' });
    const cli = resolveRun(dir, e, { settings: [] });
    expect(cli.config.settings.manager).toEqual({
      max_concurrent: 2,
      iteration_threads: 2,
      resume_on_start: true,
      defaults: { max_iterations: 30, max_runtime: 14_400_000, max_cost: 40, checkpoint_interval: 5, cooldown: 2000, failure_threshold: 5, backoff: 3000 },
    });
    expect(cli.config.settings.server).toEqual({ host: '0.0.0.0', port: 8000, public_url: null });
    expect(cli.config.sources.get('manager.defaults.max_cost')).toBe(file);
    expect(cli.config.sources.get('manager.defaults.max_iterations')).toBe('env RINGMASTER_MANAGER_DEFAULTS_MAX_ITERATIONS');
    // `ringmaster run` keeps seed 001's defaults.
    expect([cli.spec.limits.maxCostUsd, cli.spec.limits.cooldownMs, cli.spec.limits.maxIterations, cli.spec.limits.failureThreshold]).toEqual([null, 0, 5, 9]);
    // Seed 000's backoff after consecutive failures: 2^n seconds (2, 4, 8, 16), capped at backoff_max.
    expect([1, 2, 3, 4, 7].map((n) => backoffMs(n, cli.spec.limits))).toEqual([2000, 4000, 8000, 16_000, 60_000]);
    const server = resolveRun(dir, e, { settings: [{ key: 'loop.cooldown', flag: '--cooldown', raw: '7s' }] }, { defaults: 'manager' });
    expect(server.spec.limits).toMatchObject({ maxCostUsd: 40, cooldownMs: 7000, maxIterations: 30, failureThreshold: 9, maxRuntimeMs: 14_400_000, backoffBaseMs: 3000 });
    expect(server.config.sources.get('loop.backoff')).toBe(`manager.defaults.backoff (${file})`);
    expect(server.spec.checkpointInterval).toBe(5);
    expect(server.config.sources.get('loop.max_cost')).toBe(`manager.defaults.max_cost (${file})`);
    expect(server.config.sources.get('loop.max_runtime')).toBe('manager.defaults.max_runtime (built-in)');
    expect(server.config.sources.get('loop.cooldown')).toBe('flag --cooldown');
    expect(server.maxIterations).toEqual({ value: 30, source: 'manager.defaults.max_iterations (env RINGMASTER_MANAGER_DEFAULTS_MAX_ITERATIONS)' });
  });

  const cases: Array<[string, string, string]> = [
    ['unknown nested key', 'manager:\n  defaults:\n    max_cots: 3\n', ':3: manager.defaults.max_cots: unknown key (did you mean manager.defaults.max_cost?) (see README.md#configuration for the list)'],
    ['a group that is not a mapping', 'manager:\n  defaults: 5\n', ':2: manager.defaults: expected a mapping (of manager.defaults.max_iterations, manager.defaults.max_runtime, manager.defaults.max_cost, manager.defaults.checkpoint_interval, manager.defaults.cooldown, manager.defaults.failure_threshold, manager.defaults.backoff)'],
    ['bad nested value', 'manager:\n  defaults:\n    max_runtime: soon\n', `:3: manager.defaults.max_runtime: expected a duration like 90s, 5m or 4h (or 'none'), got "soon"`],
    ['unknown manager key', 'manager:\n  max_concurent: 3\n', ':2: manager.max_concurent: unknown key (did you mean manager.max_concurrent?)'],
    ['bad port', 'server:\n  port: http\n', ':2: server.port: expected a whole number, got "http"'],
  ];
  it.each(cases)('%s', async (_name, yaml, message) => {
    writeFileSync(join(dir, 'ringmaster.yml'), yaml);
    const r = await runCli(['config', 'show'], { cwd: dir, env: cleanEnv(env()) });
    expect(r.stderr.startsWith(`ringmaster config: ${join(dir, 'ringmaster.yml')}${message}`), r.stderr).toBe(true);
    expect(r.code).toBe(64);
  });

  it('serve flags and env are checked by the same schemas; RINGMASTER_TOKEN is not a setting', async () => {
    const r = await runCli(['serve', '--max-concurrent', '0'], { cwd: dir, env: cleanEnv(env({ RINGMASTER_TOKEN: 'a-token-of-some-length' })) });
    expect(r.stderr).toBe('ringmaster serve: flag --max-concurrent: manager.max_concurrent: must be at least 1, got 0\n');
    expect(r.code).toBe(64);
    const typo = await runCli(['serve'], { cwd: dir, env: cleanEnv(env({ RINGMASTER_MANAGER_MAX_CONCURENT: '3' })) });
    expect(typo.stderr).toContain('RINGMASTER_MANAGER_MAX_CONCURENT: not a ringmaster setting. Did you mean RINGMASTER_MANAGER_MAX_CONCURRENT (manager.max_concurrent)?');
    expect(typo.code).toBe(64);
  });
});

describe('errors name the file and line, the key, what was expected and what was given; exit 64, no stack trace', () => {
  const cases: Array<[string, string, string]> = [
    ['unknown key', 'loop:\n  max_iteratons: 3\n', ':2: loop.max_iteratons: unknown key (did you mean loop.default_max_iterations?) (see README.md#configuration for the list)'],
    ['bad duration', 'loop:\n  cooldown: 1s\n  max_runtime: forever\n', `:3: loop.max_runtime: expected a duration like 90s, 5m or 4h (or 'none'), got "forever"`],
    ['bad number', 'loop:\n  failure_threshold: 0\n', ':2: loop.failure_threshold: must be at least 1, got 0'],
    ['not a number', 'loop:\n  failure_threshold: [3]\n', ':2: loop.failure_threshold: expected a whole number, got [3]'],
    ['unknown section', 'loops:\n  cooldown: 1s\n', ':1: loops: unknown section (expected one of: loop, tasks, agent, manager, server, database, worker, notify, sandbox, procedures, prices, hooks)'],
    ['procedure missing a phase', 'procedures:\n  x:\n    observe: a.md\n    orient: b.md\n    decide: c.md\n', ':2: procedures.x.act: missing (expected: a non-empty string)'],
    ['procedure with an unknown key', 'procedures:\n  x:\n    observe: a.md\n    orient: b.md\n    decide: c.md\n    act: d.md\n    ack: e.md\n', ':2: procedures.x: unknown key ack'],
    ['negative price', 'prices:\n  my-model:\n    input: 1\n    output: -4\n', ':4: prices.my-model.output: must be at least 0, got -4'],
    ['list of numbers', 'loop:\n  completion_signals: [1, 2]\n', ':2: loop.completion_signals: expected a list of strings, got [1,2]'],
    ['bad boolean', 'loop:\n  fresh_context: maybe\n', ':2: loop.fresh_context: expected true or false, got "maybe"'],
    ['bad choice', 'agent:\n  permission_mode: yolo\n', ':2: agent.permission_mode: expected one of bypass, default, got "yolo"'],
    ['invalid YAML', 'loop: [\n', ':2: invalid YAML:'],
    ['an alias to no anchor (found by the property suite)', 'loop: *nowhere\n', ':1: invalid YAML: Unresolved alias'],
    ['a zero max_runtime (it once meant no limit, silently)', 'loop:\n  max_runtime: 0s\n', ":2: loop.max_runtime: a zero duration is no time at all: write 'none' for no limit\n"],
    ['an alias bomb', 'a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n', ':2: invalid YAML: its aliases expand too much (more than 100 expansions): write the values out, or use fewer aliases\n'],
  ];
  it.each(cases)('%s', async (_name, yaml, message) => {
    writeFileSync(join(dir, 'ringmaster.yml'), yaml);
    const r = await runCli(['run', '--agent-command', 'true'], { cwd: dir, env: cleanEnv(env()) });
    expect(r.stderr.startsWith(`ringmaster run: ${join(dir, 'ringmaster.yml')}${message}`), r.stderr).toBe(true);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(64);
  });

  it('a zero --max-runtime is a usage error that names none', async () => {
    const r = await runCli(['run', '--agent-command', 'true', '--max-runtime', '0s'], { cwd: dir, env: cleanEnv(env()) });
    expect([r.code, r.stdout, r.stderr]).toEqual([64, '', "ringmaster run: flag --max-runtime: loop.max_runtime: a zero duration is no time at all: write 'none' for no limit\n"]);
  });

  it('a bad env value names the variable', async () => {
    const r = await runCli(['run', '--agent-command', 'true'], { cwd: dir, env: cleanEnv(env({ RINGMASTER_LOOP_MAX_COST: 'lots' })) });
    expect(r.stderr).toBe('ringmaster run: environment variable RINGMASTER_LOOP_MAX_COST: loop.max_cost: expected an amount in USD like 20 or 7.50, got "lots"\n');
    expect(r.code).toBe(64);
  });

  it('RINGMASTER_DATABASE_URL is a setting (database.url): a bad one is refused without repeating it (it holds a password); worker settings too', async () => {
    const r = await runCli(['runs'], { cwd: dir, env: cleanEnv(env({ RINGMASTER_DATABASE_URL: 'mysql://me:hunter2@db.example.com/rm' })) });
    expect(r.stderr).toBe(
      'ringmaster runs: environment variable RINGMASTER_DATABASE_URL: database.url: expected a PostgreSQL URL like postgres://user:password@host:5432/database\n',
    );
    expect(r.code).toBe(64);
    const shown = await runCli(['config', 'show'], { cwd: dir, env: cleanEnv(env({ RINGMASTER_DATABASE_URL: 'postgres://me:hunter2@db.example.com/rm', RINGMASTER_WORKER_CONCURRENCY: '3' })) });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^database\.url +postgres:\/\/me:\*\*\*@db\.example\.com\/rm +\(env RINGMASTER_DATABASE_URL\)$/m);
    expect(shown.stdout).toMatch(/^worker\.concurrency +3 +\(env RINGMASTER_WORKER_CONCURRENCY\)$/m);
    expect(shown.stdout + shown.stderr).not.toContain('hunter2');
    const worker = await runCli(['worker', '--concurrency', '0'], { cwd: dir, env: cleanEnv(env()) });
    expect(worker.stderr).toBe('ringmaster worker: flag --concurrency: worker.concurrency: must be at least 1, got 0\n');
    expect(worker.code).toBe(64);
  });

  it('an unknown RINGMASTER_* variable is named with the closest setting, before anything runs', async () => {
    // A typo here used to be ignored: the run went on with no cost cap at all.
    const r = await runCli(['run', '--agent-command', 'true'], { cwd: dir, env: cleanEnv(env({ RINGMASTER_LOOP_MAX_COSTS: '5' })) });
    expect(r.stderr).toBe(
      'ringmaster run: environment variable RINGMASTER_LOOP_MAX_COSTS: not a ringmaster setting. Did you mean RINGMASTER_LOOP_MAX_COST (loop.max_cost)? Unset it, or see README.md#configuration for the list.\n',
    );
    expect(r.code).toBe(64);
    expect(r.stdout).toBe('');
    const missingSection = await runCli(['config', 'show'], { cwd: dir, env: cleanEnv(env({ RINGMASTER_MAX_COST: '5' })) });
    expect(missingSection.stderr).toContain('RINGMASTER_MAX_COST: not a ringmaster setting. Did you mean RINGMASTER_LOOP_MAX_COST (loop.max_cost)?');
    expect(missingSection.code).toBe(64);
    // Variables Ringmaster itself knows (its data directory, the demo agent's pace) are not settings and not errors.
    const known = await runCli(['config', 'show'], { cwd: dir, env: cleanEnv(env({ RINGMASTER_HOME: dir, RINGMASTER_SCRIPTED_DELAY_MS: '1', RINGMASTER_LOOP_COOLDOWN: '' })) });
    expect(known.code).toBe(0);
  });

  it('agent.fallback naming an unknown agent is refused at start, not at the first usage limit', async () => {
    writeFileSync(join(dir, 'ringmaster.yml'), 'agent:\n  fallback: [codex, gemni]\n');
    const r = await runCli(['run', '--agent-command', 'true'], { cwd: dir, env: cleanEnv(env()) });
    expect(r.stderr).toBe(
      `ringmaster run: ${join(dir, 'ringmaster.yml')}: agent.fallback: unknown agent 'gemni' (did you mean gemini?) (known: amp, claude, codex, command, copilot, cursor, gemini, opencode, scripted)\n`,
    );
    expect(r.code).toBe(64);
    expect(existsSync(join(dir, '.ringmaster'))).toBe(false);
    const viaEnv = await runCli(['run', '--agent-command', 'true'], { cwd: dir, env: cleanEnv(env({ RINGMASTER_AGENT_FALLBACK: 'claude,cmd' })) });
    expect(viaEnv.stderr).toContain("ringmaster run: environment variable RINGMASTER_AGENT_FALLBACK: agent.fallback: unknown agent 'cmd'");
  });

  it('a bad flag value and an unknown flag are usage errors', async () => {
    const bad = await runCli(['run', '--agent-command', 'true', '--cooldown', 'soon'], { cwd: dir, env: cleanEnv(env()) });
    expect(bad.stderr).toBe(`ringmaster run: flag --cooldown: loop.cooldown: expected a duration like 90s, 5m or 4h, got "soon"\n`);
    expect(bad.code).toBe(64);
    const unknown = await runCli(['run', '--frobnicate'], { cwd: dir, env: cleanEnv(env()) });
    expect(unknown.stderr).toContain("ringmaster run: Unknown option '--frobnicate'");
    expect(unknown.code).toBe(64);
    const iterations = await runCli(['run', '--agent-command', 'true', '--max-iterations', '0'], { cwd: dir, env: cleanEnv(env()) });
    expect(iterations.stderr).toBe('ringmaster run: --max-iterations: expected a whole number of at least 1, got "0"\n');
    expect(iterations.code).toBe(64);
  });
});

describe('config schema', () => {
  it('prints the JSON Schema of the config file: every key with its description and default', async () => {
    const r = await runCli(['config', 'schema'], { cwd: dir, env: cleanEnv(env()) });
    expect(r.code).toBe(0);
    const schema = JSON.parse(r.stdout) as {
      $schema: string;
      additionalProperties: boolean;
      properties: Record<string, { properties?: Record<string, { description?: string; default?: unknown }>; additionalProperties?: unknown }>;
    };
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties)).toEqual(['loop', 'tasks', 'agent', 'manager', 'server', 'database', 'worker', 'notify', 'sandbox', 'procedures', 'prices', 'hooks']);
    expect(Object.keys(schema.properties.notify?.properties ?? {})).toEqual(['on', 'webhooks', 'command']);
    expect(schema.properties.notify?.properties?.on?.default).toEqual(['completed', 'failed', 'limit', 'waiting', 'no_progress', 'budget']);
    const loop = schema.properties.loop?.properties ?? {};
    const agent = schema.properties.agent?.properties ?? {};
    expect(Object.keys(loop)).toContain('max_cost');
    expect(loop.max_runtime).toMatchObject({ description: 'wall-clock budget of the run (after a resume: plus the time the earlier iterations ran)', default: 'none' });
    expect(loop.idle_timeout?.default).toBe('30m');
    expect(agent.permission_mode).toMatchObject({ enum: ['bypass', 'default'], default: 'bypass' });
    expect(schema.properties.loop?.additionalProperties).toBe(false);
    const manager = schema.properties.manager?.properties ?? {};
    expect(Object.keys(manager)).toEqual(['max_concurrent', 'iteration_threads', 'resume_on_start', 'defaults']);
    const defaults = manager.defaults as { properties?: Record<string, { default?: unknown }>; additionalProperties?: unknown } | undefined;
    expect(defaults?.additionalProperties).toBe(false);
    expect(defaults?.properties?.max_runtime?.default).toBe('4h');
    expect(defaults?.properties?.max_cost?.default).toBe(300);
    expect(schema.properties.server?.properties?.port?.default).toBe(7420);
    const url = schema.properties.database?.properties?.url;
    expect(url?.default).toBe(null);
    expect(url?.description).toMatch(/^PostgreSQL store shared by many machines/);
    expect(schema.properties.worker?.properties?.concurrency?.default).toBe(1);
    expect(Object.keys(schema.properties.worker?.properties ?? {})).toEqual(['concurrency', 'workdir']);
  });

  it('every key of the README table is in the schema, and the README example loads', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    // The first cell of each row of the table: one key, or several as `a` / `b`.
    const cells = [...readme.matchAll(/^\| (`(?:loop|tasks|agent|manager|server|database|worker|notify|sandbox)\.[^|]+) \|/gm)].map((m) => m[1] ?? '');
    const keys = cells.flatMap((cell) => [...cell.matchAll(/`([a-z_.]+)`/g)].map((m) => m[1]));
    const { SETTINGS } = await import('../../src/config/settings.js');
    expect(keys.sort()).toEqual(SETTINGS.map((s) => s.key).sort());
    const example = /```yaml\n# ringmaster.yml\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    writeFileSync(join(dir, 'ringmaster.yml'), example);
    const { config } = resolveRun(dir, env(), { settings: [] });
    expect(config.settings.loop.max_runtime).toBe(4 * 3_600_000);
  });
});
