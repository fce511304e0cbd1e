// `ringmaster serve --demo`: a few scripted loops in temporary workspaces, so that a newcomer sees a live
// dashboard in seconds with no agent CLI and no API key. Everything lives in one temporary directory (its own
// data directory, so the user's runs are not touched), removed when the server stops. The loops use the
// built-in scripted agents: one prints plain text, the others speak Claude Code's stream-json through a
// `claude` put first on the server's PATH, so the dashboard shows markdown, tool calls and costs.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quoteArgv } from '../agents/command.js';
import type { LoopManager } from './manager.js';
import type { RunRequest } from './run-request.js';
import type { Store } from '../store/index.js';

/** One scripted loop of the demo. */
interface DemoLoop {
  name: string;
  tasks: string[];
  /** Read by the stream-json agent: its cost per iteration, a failure every time, a usage limit once. */
  options: { cost?: number; fail?: boolean; limit_at?: number; limit_seconds?: number } | null;
  request: Omit<RunRequest, 'workspace'>;
  /** Paused after its first iteration, to show a paused run. */
  pauseAfterFirst?: boolean;
}

const LOOPS: DemoLoop[] = [
  {
    name: 'todo-app',
    tasks: ['Write the project README', 'Add a greeting module', 'Add tests for the greeting', 'Add a CLI entry point', 'Document the CLI'],
    options: null,
    request: { prompt: 'Build the todo app: do the first unchecked task of TODO.md, check it off.\nWhen every task is done print <promise>COMPLETE</promise>.', agent: 'scripted', max_iterations: 10 },
  },
  {
    name: 'docs-site',
    tasks: ['Set up the site generator', 'Write the getting-started page', 'Write the API reference', 'Add search', 'Add a dark theme', 'Write the FAQ', 'Publish the changelog', 'Add versioned docs', 'Check every link', 'Add a sitemap', 'Add analytics', 'Write the migration guide'],
    options: { cost: 0.07 },
    request: { prompt: 'Build the documentation site: one task of TODO.md per iteration, tests green after each.', agent: 'claude', max_iterations: 20, max_cost: 0.6 },
  },
  {
    name: 'api-server',
    tasks: ['Add the /health endpoint', 'Add request logging', 'Add rate limiting', 'Add the OpenAPI document'],
    options: { cost: 0.05, limit_at: 2, limit_seconds: 40 },
    request: { prompt: 'Harden the API server: work through TODO.md, one task per iteration.', agent: 'claude', max_iterations: 10, max_cost: 2 },
  },
  {
    name: 'flaky-ci',
    tasks: ['Fix the flaky integration test'],
    options: { cost: 0.03, fail: true },
    request: { prompt: 'Make the integration test pass reliably.', agent: 'claude', max_iterations: 10, failure_threshold: 3 },
  },
  {
    name: 'refactor-core',
    tasks: ['Split the core module', 'Remove the dead code', 'Rename the config loader'],
    options: { cost: 0.06 },
    request: { prompt: 'Refactor the core module, one TODO.md task per iteration.', agent: 'claude', max_iterations: 10, max_cost: 3 },
    pauseAfterFirst: true,
  },
];

/** A prepared demo: where it lives, the environment the server runs with, what to start, how to clean up. */
export interface Demo {
  dir: string;
  /** The server's environment: the demo's data directory, the scripted `claude` first on PATH, the agents' pace. */
  env: Record<string, string | undefined>;
  /** Creates the loops through the manager (as POST /api/runs would); returns their run ids. */
  start(manager: LoopManager, store: Store): Promise<string[]>;
  /** Removes the demo directory (after the server stopped). */
  remove(): void;
}

/** Pace of the scripted agents: how long one iteration takes (ms), unless RINGMASTER_SCRIPTED_DELAY_MS says. */
export const DEMO_ITERATION_MS = 2500;

function gitInit(dir: string): void {
  const env = { ...process.env, GIT_AUTHOR_NAME: 'Ringmaster Demo', GIT_AUTHOR_EMAIL: 'demo@ringmaster.invalid', GIT_COMMITTER_NAME: 'Ringmaster Demo', GIT_COMMITTER_EMAIL: 'demo@ringmaster.invalid' };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore', env });
  try {
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'demo: initial TODO');
  } catch {
    // git is optional: without it the loops run without checkpoints.
  }
}

/** Asks a run to pause once its first iteration has started: it pauses when that iteration ends. */
async function pauseOnceStarted(manager: LoopManager, store: Store, id: string): Promise<void> {
  try {
    for (let tries = 0; tries < 300; tries++) {
      if ((await store.runTotals(id)).iterations > 0) {
        await manager.control(id, 'pause', 'demo');
        return;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  } catch {
    // The server is stopping: nothing to pause.
  }
}

/** Creates the demo's directory: a data directory, the scripted `claude`, one git workspace per loop. */
export function prepareDemo(env: Readonly<Record<string, string | undefined>>, parent: string = tmpdir()): Demo {
  const dir = mkdtempSync(join(parent, 'ringmaster-serve-demo-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const agent = fileURLToPath(new URL('../agents/scripted/stream-agent.js', import.meta.url));
  const shim = join(bin, 'claude');
  writeFileSync(shim, `#!/bin/sh\n# The demo's scripted stand-in for Claude Code (ringmaster serve --demo).\nexec ${quoteArgv([process.execPath, agent])}\n`);
  chmodSync(shim, 0o755);
  const workspaces = LOOPS.map((loop) => {
    const workspace = join(dir, 'workspaces', loop.name);
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, 'TODO.md'), `# TODO\n\n${loop.tasks.map((t) => `- [ ] ${t}`).join('\n')}\n`);
    if (loop.options) writeFileSync(join(workspace, '.demo.json'), `${JSON.stringify(loop.options)}\n`);
    gitInit(workspace);
    return workspace;
  });
  const pace = Number(env.RINGMASTER_SCRIPTED_DELAY_MS ?? DEMO_ITERATION_MS);
  return {
    dir,
    env: { ...env, RINGMASTER_HOME: join(dir, 'data'), PATH: `${bin}${delimiter}${env.PATH ?? ''}`, RINGMASTER_SCRIPTED_DELAY_MS: String(pace) },
    async start(manager, store) {
      const ids: string[] = [];
      // A cooldown in proportion to the pace: a second at the demo's own.
      const cooldown = pace / DEMO_ITERATION_MS;
      for (const [i, loop] of LOOPS.entries()) {
        const { id } = await manager.createRun({ workspace: workspaces[i] ?? '', cooldown, checkpoint_interval: 1, ...loop.request });
        ids.push(id);
        if (loop.pauseAfterFirst) void pauseOnceStarted(manager, store, id);
      }
      return ids;
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
