// A command source: a program prints the tasks as JSON; a second program is told every status change
// (argv: task id and status, the change as JSON on stdin). No shell anywhere.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandSource, parseTaskListOutput } from '../../src/tasks/sources/command.js';
import { useWorkspace } from '../helpers/cli.js';

const ws = useWorkspace('unused\n');
const node = process.execPath;

const LIST = `import { readFileSync } from 'node:fs';
process.stdout.write(readFileSync('issues.json', 'utf8'));
`;
const STATUS = `import { appendFileSync } from 'node:fs';
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => appendFileSync('changes.log', JSON.stringify({ argv: process.argv.slice(2), stdin: input, env: process.env.RINGMASTER_TASK_STATUS }) + '\\n'));
`;

describe('command source', () => {
  it('lists tasks from a program and reports status changes to another', async () => {
    writeFileSync(join(ws.dir, 'list.mjs'), LIST);
    writeFileSync(join(ws.dir, 'status.mjs'), STATUS);
    writeFileSync(join(ws.dir, 'issues.json'), JSON.stringify({ tasks: [{ id: 12, title: 'Fix login', priority: 2 }, { id: '13', title: 'Add logout', dependsOn: [12] }] }));
    const source = commandSource({ list: [node, 'list.mjs'], status: [node, 'status.mjs', '--repo', 'a b'], cwd: ws.dir, env: process.env, timeoutMs: 10_000 });
    expect([source.kind, source.path, source.name]).toEqual(['command', null, `${node} list.mjs`]);
    const tasks = await source.load();
    expect(tasks.map((t) => [t.id, t.title, t.priority, t.dependsOn, t.line, t.order])).toEqual([
      ['12', 'Fix login', 2, [], null, 0],
      ['13', 'Add logout', null, ['12'], null, 1],
    ]);
    await source.setStatus({ id: '12', status: 'blocked', blocker: "can't reach; the API $HOME" });
    expect(JSON.parse(readFileSync(join(ws.dir, 'changes.log'), 'utf8'))).toEqual({
      argv: ['--repo', 'a b', '12', 'blocked'],
      stdin: `{"id":"12","status":"blocked","blocker":"can't reach; the API $HOME"}\n`,
      env: 'blocked',
    });
  });

  it('accepts an array or one task per line; schema errors name the task and the field', () => {
    expect(parseTaskListOutput('[{"id":"a","title":"t"}]', 'out').map((t) => t.id)).toEqual(['a']);
    expect(parseTaskListOutput('{"id":"a","title":"t"}\n{"id":"b","title":"u"}\n', 'out').map((t) => t.id)).toEqual(['a', 'b']);
    expect(parseTaskListOutput('  \n', 'out')).toEqual([]);
    expect(() => parseTaskListOutput('[{"id":"a","title":"t"},{"id":"b"}]', "output of 'x'")).toThrow("output of 'x': [1].title: Invalid input: expected string, received undefined");
    expect(() => parseTaskListOutput('[{"id":"a","title":"t"},{"id":"a","title":"u"}]', 'out')).toThrow("out: [1].id: duplicate task id 'a' (also at task 1)");
    expect(() => parseTaskListOutput('"hello"', 'out')).toThrow('out: expected a JSON array of tasks (or an object with a "tasks" array)');
  });

  it('a list command that fails or hangs is an error with its output; no status command means no report', async () => {
    const failing = commandSource({ list: [node, '-e', "console.error('gh: not logged in'); process.exit(4)"], status: null, cwd: ws.dir, env: process.env, timeoutMs: 10_000 });
    await expect(failing.load()).rejects.toThrow(`task command '${node} -e 'console.error('\\''gh: not logged in'\\''); process.exit(4)'' exited 4: gh: not logged in`);
    await expect(failing.setStatus({ id: 'x', status: 'done', blocker: null })).resolves.toBeUndefined();
    const hanging = commandSource({ list: [node, '-e', 'setInterval(() => {}, 1000)'], status: [node, '-e', 'process.exit(1)'], cwd: ws.dir, env: process.env, timeoutMs: 500 });
    await expect(hanging.load()).rejects.toThrow('timed out after 1s (killed)');
    await expect(hanging.setStatus({ id: 'x', status: 'done', blocker: null })).rejects.toThrow(`task status command '${node} -e 'process.exit(1)' x done' exited 1`);
  });
});
