// `ringmaster demo`: a real loop, no API key: a temporary git repository, the built-in scripted agent.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { UsageError } from '../../core/errors.js';
import { resolveRun } from '../../spec/resolve.js';
import { newRunId } from '../../core/ids.js';
import { runInTerminal } from '../run-session.js';
import type { CliIO, Command } from '../command.js';
import { GIT_TIMEOUT_MS, SAFE_GIT_CONFIG } from '../../git/git-exec.js';
import { workflowRun } from './workflow-run.js';
import { tasksRun } from './tasks-run.js';
import { flagProblem } from '../flag-problem.js';

const TODO = `# TODO

- [ ] Write the project README
- [ ] Add a greeting module
- [ ] Add tests for the greeting
`;

/** The demo's task list (what `demo --tasks` works through): a dependency, a file check, a validation script. */
const TASKS = [
  { id: 'DEMO-1', title: 'Write the project README', priority: 3, createdAt: '2025-01-01T00:00:00Z', acceptance: ['says what the project does'] },
  { id: 'DEMO-2', title: 'Add a greeting module', priority: 2, createdAt: '2025-01-02T00:00:00Z', completion: { type: 'file_exists', path: 'src/greeting.md' } },
  { id: 'DEMO-3', title: 'Add tests for the greeting', priority: 1, dependsOn: ['DEMO-2'], completion: { type: 'validate', script: 'checks/tests-written.mjs' } },
];

/** DEMO-3's validation script: a draft does not pass. */
const CHECK = `// Passes when work/DEMO-3.md holds the tests, not a draft (the completion check of DEMO-3).
import { readFileSync } from 'node:fs';
const text = readFileSync('work/DEMO-3.md', 'utf8');
if (text.includes('(draft)')) {
  console.log('work/DEMO-3.md is still a draft');
  process.exit(1);
}
`;

const PROMPT = `You are working in this repository. Read TODO.md, pick the first unchecked task, do it completely,
and check it off. When every task in TODO.md is checked off, print <promise>COMPLETE</promise>.
`;

/** The user stories of the demo's prd.json (what the `ralph` workflow works through). */
const PRD = {
  project: 'greeting',
  userStories: [
    { id: 'US-001', title: 'Greet the user by name', priority: 1, passes: false },
    { id: 'US-002', title: 'Say goodbye on exit', priority: 2, passes: false },
    { id: 'US-003', title: 'Greet in French with --lang fr', priority: 3, passes: false },
  ],
};

/** Creates the demo workspace: a git repository with TODO.md, PROMPT.md, prd.json, and tasks.jsonl with its check. */
export function createDemoWorkspace(parent: string = tmpdir()): string {
  const dir = mkdtempSync(join(parent, 'ringmaster-demo-'));
  writeFileSync(join(dir, 'TODO.md'), TODO);
  writeFileSync(join(dir, 'PROMPT.md'), PROMPT);
  writeFileSync(join(dir, 'prd.json'), `${JSON.stringify(PRD, null, 2)}\n`);
  writeFileSync(join(dir, 'tasks.jsonl'), TASKS.map((t) => `${JSON.stringify(t)}\n`).join(''));
  mkdirSync(join(dir, 'checks'));
  writeFileSync(join(dir, 'checks', 'tests-written.mjs'), CHECK);
  // Like every git command of Ringmaster's: none of the user's (global) hooks, and a time limit.
  const git = (...args: string[]) => execFileSync('git', [...SAFE_GIT_CONFIG, ...args], { cwd: dir, stdio: 'ignore', timeout: GIT_TIMEOUT_MS, env: { ...process.env, GIT_AUTHOR_NAME: 'Ringmaster Demo', GIT_AUTHOR_EMAIL: 'demo@ringmaster.invalid', GIT_COMMITTER_NAME: 'Ringmaster Demo', GIT_COMMITTER_EMAIL: 'demo@ringmaster.invalid' } });
  try {
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'demo: initial TODO and prompt');
  } catch {
    // git is optional for the demo: the loop works in a plain directory too.
  }
  return dir;
}

/** The demo's flags. */
interface DemoFlags {
  json?: boolean;
  verbose?: boolean;
  workflow?: boolean;
  tasks?: boolean;
}

async function demo(args: string[], io: CliIO): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args, options: { json: { type: 'boolean' }, verbose: { type: 'boolean', short: 'v' }, dir: { type: 'string' }, workflow: { type: 'boolean' }, tasks: { type: 'boolean' } }, strict: true }));
  } catch (error) {
    throw new UsageError(flagProblem(error));
  }
  const workspace = createDemoWorkspace(values.dir ?? tmpdir());
  try {
    return await runDemo(values, workspace, io);
  } catch (error) {
    // The demo broke (most often before anything ran: no data directory, a broken install): its temporary
    // workspace goes with it rather than be left in the temporary directory.
    rmSync(workspace, { recursive: true, force: true });
    throw error;
  }
}

/** Runs the chosen demo in `workspace`. */
async function runDemo(values: DemoFlags, workspace: string, io: CliIO): Promise<number> {
  if (values.workflow) {
    if (!values.json) io.stdout.write(`Demo workspace: ${workspace}\n(the 'ralph' workflow: the scripted agent implements one prd.json story per iteration, then signals completion)\n\n`);
    const flags = ['--agent', 'scripted', '--cwd', workspace, '--checkpoint-interval', '1', ...(values.json ? ['--json'] : []), ...((values.verbose ?? !values.json) ? ['--verbose'] : [])];
    const code = await workflowRun(['ralph', 'Build the greeting feature', ...flags], io);
    if (!values.json) io.stdout.write(`\nLook at the result: cd ${workspace} && cat prd.json progress.txt && git log --oneline\n`);
    return code;
  }
  if (values.tasks) {
    if (!values.json) io.stdout.write(`Demo workspace: ${workspace}\n(a task run over tasks.jsonl: the scripted agent does one task per iteration; DEMO-3's first claim fails its check)\n\n`);
    const code = await tasksRun(['--agent', 'scripted', '--max-cost', 'none', '--cwd', workspace, ...(values.json ? ['--json'] : []), ...((values.verbose ?? !values.json) ? ['--verbose'] : [])], io);
    if (!values.json) io.stdout.write(`\nLook at the result: cd ${workspace} && cat tasks.jsonl progress.jsonl learning.jsonl && git log --oneline\n`);
    return code;
  }
  if (!values.json) io.stdout.write(`Demo workspace: ${workspace}\n(the scripted agent checks off one TODO.md task per iteration, then signals completion)\n\n`);
  const { spec } = resolveRun(workspace, {}, { settings: [{ key: 'agent.name', flag: '--agent', raw: 'scripted' }, { key: 'loop.checkpoint_interval', flag: '--checkpoint-interval', raw: '1' }], maxIterations: '5' });
  const { exitCode: code } = await runInTerminal(io, { workspace, runId: newRunId(Date.now(), Math.random), spec, json: values.json, verbose: values.verbose ?? true, mode: 'create' });
  if (!values.json) io.stdout.write(`\nLook at the result: cd ${workspace} && cat TODO.md && ls work/ && git log --oneline\n`);
  return code;
}

/** The `demo` command. */
export const demoCommand: Command = {
  name: 'demo',
  usage: `Usage: ringmaster demo [--workflow | --tasks] [--verbose] [--json] [--dir PARENT]

Creates a temporary git repository with a TODO.md of three tasks and a PROMPT.md, then runs a real loop
with the built-in scripted agent (a deterministic stand-in for an AI CLI): each iteration is a fresh process
that checks off one task by writing a file; the fourth iteration finds nothing left and prints
<promise>COMPLETE</promise>. Prints the same progress lines as 'ringmaster run' (with the agent's output).

  --workflow   run the shipped 'ralph' workflow instead (ringmaster workflow run ralph --agent scripted):
               the workspace's prd.json has three user stories; each iteration implements one, marks it
               passing, appends to progress.txt and commits; the third prints <promise>COMPLETE</promise>
  --tasks      run a task loop instead (ringmaster tasks run --agent scripted) over the workspace's tasks.jsonl:
               three tasks, one commit each; DEMO-3 depends on DEMO-2 and is checked by a validation script,
               which turns down the agent's first (draft) claim; the next iteration fixes it
`,
  run: demo,
};
