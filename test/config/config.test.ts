// Configuration layering (flags > env > workspace > global > built-in), seed 001's max-iterations order, errors.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveRun } from '../../src/config/resolve.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

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
    expect(config.values.get('loop.failure_threshold')?.source).toBe(globalFile);
    expect(spec.limits.cooldownMs).toBe(20_000);
    expect(config.values.get('loop.cooldown')?.source).toBe(join(dir, 'ringmaster.yml'));
    expect(spec.limits.maxCostUsd).toBe(5);
    expect(config.values.get('loop.max_cost')?.source).toBe('env RINGMASTER_LOOP_MAX_COST');
    expect(spec.idleTimeoutMs).toBe(300_000);
    expect(config.values.get('loop.idle_timeout')?.source).toBe('flag --idle-timeout');
    expect(spec.limits.maxRuntimeMs).toBeNull();
    expect(config.values.get('loop.max_runtime')?.source).toBe('built-in');
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
    expect(lines).toContain(`loop.max_runtime 14400s (${join(dir, 'ringmaster.yml')})`);
    expect(lines).toContain('loop.max_cost $12.5 (flag --max-cost)');
    expect(lines).toContain(`agent.command ["my-agent","--x"] (${join(dir, 'ringmaster.yml')})`);
    expect(lines).toContain('loop.failure_threshold 3 (built-in)');
  });
});

describe('errors name the file, the key and the problem, exit 64, no stack trace', () => {
  const cases: Array<[string, string, string]> = [
    ['unknown key', 'loop:\n  max_iteratons: 3\n', 'loop.max_iteratons: unknown key (see README.md#configuration for the list)'],
    ['bad duration', 'loop:\n  max_runtime: forever\n', `loop.max_runtime: expected a duration like 90s, 5m or 4h (or 'none'), got "forever"`],
    ['bad number', 'loop:\n  failure_threshold: 0\n', 'loop.failure_threshold: must be at least 1, got 0'],
    ['unknown section', 'loops:\n  cooldown: 1s\n', 'loops: unknown section (expected one of: loop, agent, tasks, manager, server, database, procedures, prices, hooks)'],
    ['procedure missing a phase', 'procedures:\n  x:\n    observe: a.md\n    orient: b.md\n    decide: c.md\n', 'procedures.x.act: Invalid input: expected string, received undefined'],
    ['invalid YAML', 'loop: [\n', 'line 2: invalid YAML:'],
  ];
  it.each(cases)('%s', async (_name, yaml, message) => {
    writeFileSync(join(dir, 'ringmaster.yml'), yaml);
    const r = await runCli(['run', '--agent-command', 'true'], { cwd: dir, env: cleanEnv(env()) });
    expect(r.stderr.startsWith(`ringmaster run: ${join(dir, 'ringmaster.yml')}: ${message}`)).toBe(true);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(64);
  });

  it('a bad env value names the variable', async () => {
    const r = await runCli(['run', '--agent-command', 'true'], { cwd: dir, env: cleanEnv(env({ RINGMASTER_LOOP_MAX_COST: 'lots' })) });
    expect(r.stderr).toBe('ringmaster run: environment variable RINGMASTER_LOOP_MAX_COST: loop.max_cost: expected an amount in USD like 20 or 7.50, got "lots"\n');
    expect(r.code).toBe(64);
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
