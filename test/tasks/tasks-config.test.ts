// The tasks.* settings and the hooks: section of ringmaster.yml, with the task source they select.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, sourced } from '../../src/config/load.js';
import { SETTINGS } from '../../src/config/settings.js';
import { resolveTaskSource } from '../../src/tasks/sources/resolve.js';
import { useWorkspace } from '../helpers/cli.js';

const ws = useWorkspace('unused\n');

function env(extra: Record<string, string> = {}): Record<string, string> {
  return { HOME: ws.dir, XDG_CONFIG_HOME: join(ws.dir, 'no-global'), ...extra };
}

const value = (dir: string, key: string, e = env()) => {
  const config = loadConfig(dir, e);
  const entry = SETTINGS.find((s) => s.key === key);
  if (!entry) throw new Error(`no setting ${key}`);
  return sourced(config, entry);
};

describe('tasks settings', () => {
  it("seed 003's defaults, overridden by the file and by env", () => {
    expect(['tasks.max_iterations_per_task', 'tasks.max_runtime_per_task', 'tasks.max_cost_per_task', 'tasks.max_tasks', 'tasks.on_failure', 'tasks.parallelism'].map((k) => value(ws.dir, k)?.value)).toEqual([
      10, 1_800_000, 5, 50, 'continue', 1,
    ]);
    writeFileSync(join(ws.dir, 'ringmaster.yml'), 'tasks:\n  max_iterations_per_task: 3\n  max_runtime_per_task: 5m\n  on_failure: stop\n  command: "gh-tasks list --json"\n');
    expect(value(ws.dir, 'tasks.max_iterations_per_task')).toEqual({ value: 3, source: join(ws.dir, 'ringmaster.yml') });
    expect(value(ws.dir, 'tasks.max_runtime_per_task')?.value).toBe(300_000);
    expect(value(ws.dir, 'tasks.on_failure')?.value).toBe('stop');
    expect(value(ws.dir, 'tasks.command')?.value).toEqual(['gh-tasks', 'list', '--json']);
    expect(value(ws.dir, 'tasks.max_tasks', env({ RINGMASTER_TASKS_MAX_TASKS: '7' }))).toEqual({ value: 7, source: 'env RINGMASTER_TASKS_MAX_TASKS' });
    writeFileSync(join(ws.dir, 'ringmaster.yml'), 'tasks:\n  on_failure: retry\n');
    expect(() => loadConfig(ws.dir, env())).toThrow(`${join(ws.dir, 'ringmaster.yml')}:2: tasks.on_failure: expected one of continue, stop, got "retry"`);
  });

  it('hooks: a shell command line or an argv list per event; an unknown event is named', () => {
    writeFileSync(join(ws.dir, 'ringmaster.yml'), 'hooks:\n  task_start: ./notify.sh started\n  task_end: ["notify", "--done"]\n');
    expect(loadConfig(ws.dir, env()).hooks).toEqual({
      task_start: { command: './notify.sh started', source: join(ws.dir, 'ringmaster.yml') },
      task_end: { command: ['notify', '--done'], source: join(ws.dir, 'ringmaster.yml') },
    });
    writeFileSync(join(ws.dir, 'ringmaster.yml'), 'hooks:\n  on_start: x\n');
    expect(() => loadConfig(ws.dir, env())).toThrow(`${join(ws.dir, 'ringmaster.yml')}:2: hooks.on_start: unknown hook (did you mean hooks.iteration_start?) (expected one of: task_start, iteration_start, action, iteration_end, task_end, anomaly)`);
    writeFileSync(join(ws.dir, 'ringmaster.yml'), 'hooks:\n  anomaly: ""\n');
    expect(() => loadConfig(ws.dir, env())).toThrow(`${join(ws.dir, 'ringmaster.yml')}:2: hooks.anomaly: expected a command`);
  });
});

describe('resolveTaskSource', () => {
  it('FILE, else tasks.command, else tasks.file, else the first default file', async () => {
    mkdirSync(join(ws.dir, 'plans'));
    writeFileSync(join(ws.dir, 'plans', 'backlog.md'), '- [ ] a\n');
    writeFileSync(join(ws.dir, 'TODO.md'), '- [ ] b\n');
    const resolve = (file?: string) => resolveTaskSource(ws.dir, loadConfig(ws.dir, env()), env(), file);
    expect((await resolve()).name).toBe('TODO.md');
    expect((await resolve('plans/backlog.md')).name).toBe(join('plans', 'backlog.md'));
    writeFileSync(join(ws.dir, 'ringmaster.yml'), 'tasks:\n  file: plans/backlog.md\n');
    expect((await resolve()).name).toBe(join('plans', 'backlog.md'));
    writeFileSync(join(ws.dir, 'ringmaster.yml'), 'tasks:\n  file: plans/backlog.md\n  command: ["list-tasks", "--open"]\n');
    expect(await resolve()).toMatchObject({ kind: 'command', name: 'list-tasks --open', path: null });
  });

  it('no task file is an error that says what was looked for', async () => {
    await expect(resolveTaskSource(ws.dir, loadConfig(ws.dir, env()), env(), undefined)).rejects.toThrow(
      `no task file in ${ws.dir}: expected one of tasks.jsonl, prd.json, TODO.md (or name one, or set tasks.file or tasks.command in ringmaster.yml)`,
    );
  });
});
