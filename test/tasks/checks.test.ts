// Completion checks and the bounded helper process behind them: exit 0 passes, output kept within bounds,
// timeouts and aborts kill the whole process group, validation scripts run with their extension's interpreter.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { groupAlive } from '../../src/os/process-group.js';
import { checkFeedback, interpreterFor, runCheck, type CheckOptions } from '../../src/tasks/checks.js';
import { execBounded } from '../../src/os/exec.js';
import type { Completion, Task } from '../../src/tasks/task.js';
import { useWorkspace } from '../helpers/cli.js';
import { makeTask } from './task-fixture.js';

const ws = useWorkspace('unused\n');
const node = process.execPath;

const taskWith = (completion: Completion): Task => makeTask('T-1', { title: 'the task', status: 'in_progress', completion, line: 1 });

function options(extra: Partial<CheckOptions> = {}): CheckOptions {
  return { workspace: ws.dir, env: process.env, defaultTimeoutMs: 60_000, ...extra };
}

function script(name: string, text: string): string {
  const path = join(ws.dir, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

describe('runCheck', () => {
  it('signal: no check to run', async () => {
    expect(await runCheck(taskWith({ type: 'signal' }), options())).toBeNull();
  });

  it('file_exists: relative to the workspace', async () => {
    const task = taskWith({ type: 'file_exists', path: './specs/task-schema.md' });
    expect(await runCheck(task, options())).toEqual({ type: 'file_exists', passed: false, summary: './specs/task-schema.md does not exist', output: '', interrupted: false });
    script('specs/task-schema.md', '# schema\n');
    expect(await runCheck(task, options())).toEqual({ type: 'file_exists', passed: true, summary: './specs/task-schema.md exists', output: '', interrupted: false });
  });

  it('test: a command string is split without a shell and run in the workspace with the task in its env', async () => {
    script('t.mjs', "import { writeFileSync } from 'node:fs';\nwriteFileSync('seen.json', JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd(), id: process.env.RINGMASTER_TASK_ID }));\nconsole.log('1 failing');\nprocess.exitCode = Number(process.argv[2]);\n");
    const failing = await runCheck(taskWith({ type: 'test', command: `${node} t.mjs 1 "two words" $HOME`, timeoutMs: null }), options());
    expect(failing).toEqual({ type: 'test', passed: false, summary: `test command '${node} t.mjs 1 'two words' '$HOME'' exited 1`, output: '1 failing\n', interrupted: false });
    expect(JSON.parse(readFileSync(join(ws.dir, 'seen.json'), 'utf8'))).toEqual({ argv: ['1', 'two words', '$HOME'], cwd: ws.dir, id: 'T-1' });
    expect(checkFeedback(failing!)).toBe(`test command '${node} t.mjs 1 'two words' '$HOME'' exited 1. The end of its output:\n\`\`\`\n1 failing\n\`\`\``);
    const passing = await runCheck(taskWith({ type: 'test', command: [node, 't.mjs', '0'], timeoutMs: null }), options());
    expect(passing?.passed).toBe(true);
    const missing = await runCheck(taskWith({ type: 'test', command: 'no-such-test-runner --x', timeoutMs: null }), options());
    expect(missing).toMatchObject({ passed: false, summary: "test command 'no-such-test-runner --x' could not start: command not found: no-such-test-runner" });
    const bad = await runCheck(taskWith({ type: 'test', command: 'npm "test', timeoutMs: null }), options());
    expect(bad?.summary).toBe('bad test command: unterminated " quote in command: npm "test');
  });

  it('validate: the interpreter comes from the extension (TypeScript runs on Node itself)', async () => {
    expect(interpreterFor('a.ts')).toEqual([node]);
    expect(interpreterFor('a.py')).toEqual(['python3']);
    expect(interpreterFor('a.sh')).toEqual(['sh']);
    expect(interpreterFor('validate')).toEqual([]);
    script('skills/validate-task-001.ts', "const n: number = 2;\nimport { existsSync } from 'node:fs';\nif (!existsSync('out.txt')) { console.error('out.txt missing'); process.exit(n); }\n");
    const task = taskWith({ type: 'validate', script: './skills/validate-task-001.ts', timeoutMs: null });
    const failed = await runCheck(task, options());
    expect(failed).toMatchObject({ passed: false, summary: 'validation script ./skills/validate-task-001.ts exited 2' });
    expect(failed?.output).toContain('out.txt missing');
    writeFileSync(join(ws.dir, 'out.txt'), 'x');
    expect((await runCheck(task, options()))?.passed).toBe(true);
    script('check.sh', 'test -f out.txt\n');
    expect((await runCheck(taskWith({ type: 'validate', script: 'check.sh', timeoutMs: null }), options()))?.passed).toBe(true);
    expect(await runCheck(taskWith({ type: 'validate', script: 'nope.ts', timeoutMs: null }), options())).toMatchObject({ passed: false, summary: 'validation script nope.ts not found' });
  });

  it("a check that outlives its timeout is killed with its process group, and fails", async () => {
    script('hang.mjs', "import { spawn } from 'node:child_process';\nimport { writeFileSync } from 'node:fs';\nconst c = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });\nwriteFileSync('pids', `${process.pid} ${c.pid}`);\nconsole.log('running forever');\nsetInterval(() => {}, 1000);\n");
    const outcome = await runCheck(taskWith({ type: 'test', command: [node, 'hang.mjs'], timeoutMs: 1500 }), options());
    expect(outcome).toMatchObject({ passed: false, summary: `test command '${node} hang.mjs' timed out after 2s (killed)`, interrupted: false });
    const [leader] = readFileSync(join(ws.dir, 'pids'), 'utf8').split(' ').map(Number);
    expect(groupAlive(leader!)).toBe(false);
  });

  it("the run's AbortSignal interrupts a check (not a verdict on the task)", async () => {
    script('slow.mjs', "console.log('slow');\nsetInterval(() => {}, 1000);\n");
    const controller = new AbortController();
    const pending = runCheck(taskWith({ type: 'test', command: [node, 'slow.mjs'], timeoutMs: null }), options({ signal: controller.signal }));
    setTimeout(() => controller.abort(), 300);
    expect(await pending).toMatchObject({ passed: false, interrupted: true, summary: `test command '${node} slow.mjs' interrupted (killed)` });
  });
});

describe('execBounded', () => {
  it('keeps only the end of a long output, and at most stdoutBytes of stdout', async () => {
    const loud = await execBounded({ argv: [node, '-e', "process.stdout.write('a'.repeat(100000) + 'END')"], cwd: ws.dir, timeoutMs: null, tailBytes: 1000 });
    expect(loud.reason).toBe('exited');
    expect(loud.tail.startsWith('[… earlier output cut]\n')).toBe(true);
    expect(loud.tail.endsWith('aaaEND')).toBe(true);
    expect(loud.tail.length).toBeLessThan(1100);
    const over = await execBounded({ argv: [node, '-e', "process.stdout.write('b'.repeat(100000)); setInterval(() => {}, 1000)"], cwd: ws.dir, timeoutMs: null, stdoutBytes: 10 });
    expect(over.reason).toBe('stdout_overflow');
    expect(over.stdout).toBe('');
  });

  it('writes stdin and closes it; a process that ignores stdin is fine', async () => {
    const echo = await execBounded({ argv: [node, '-e', 'process.stdin.pipe(process.stdout)'], cwd: ws.dir, stdin: 'hello\n', timeoutMs: null, stdoutBytes: 100 });
    expect(echo).toMatchObject({ reason: 'exited', exitCode: 0, stdout: 'hello\n' });
    const deaf = await execBounded({ argv: ['true'], cwd: ws.dir, stdin: 'x'.repeat(1_000_000), timeoutMs: null });
    expect(deaf).toMatchObject({ reason: 'exited', exitCode: 0 });
    expect(existsSync(ws.dir)).toBe(true);
  });
});
