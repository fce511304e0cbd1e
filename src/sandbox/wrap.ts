// One agent invocation put in its sandbox: bubblewrap around it and, for a filtered network, the host's proxy
// started and the forwarder (forwarder.ts) as the sandbox's first process. `finish` stops the proxy and says which
// connections it refused.
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import type { Invocation } from '../agents/types.js';
import { bwrapArgs, statePaths } from './bwrap-args.js';
import { FORWARDER_SCRIPT } from './forwarder.js';
import { allowedEndpoints, allowedHosts, isLoopback, type Endpoint, type SandboxPolicy } from './policy.js';
import type { SandboxProxy } from './proxy.js';

/** What one iteration's sandbox needs besides the invocation (plain data: it crosses to the iteration helpers). */
export interface SandboxContext {
  policy: SandboxPolicy;
  /** Ringmaster's data directory (hidden; its agents/ directory stays readable for agent.auto_install's CLIs). */
  dataDir: string;
  /** Files the agent is handed (read-only). */
  readable: string[];
}

/** A sandboxed invocation and how to end what came with it. */
export interface Sandboxed {
  invocation: Invocation;
  /** Stops the proxy and removes its socket; the connections it refused. */
  finish(): Promise<Endpoint[]>;
}

/** The bubblewrap binary (`RINGMASTER_BWRAP` is not read: the one on PATH, as `doctor` checks it). */
export const BWRAP = 'bwrap';

/** Where the sandbox has a private, empty directory of its own: what lives there on the host is not seen inside. */
const PRIVATE_TMP = ['/tmp/', '/var/tmp/'];

/**
 * The host paths under a private /tmp that the agent's program needs (read-only inside): the directory of each
 * existing file its command and arguments name there, its PATH's directories there, and the Node that runs the
 * forwarder. Never one inside, or
 * holding, the data directory or HOME (hidden; a test's may live under /tmp too).
 */
function programsInTmp(invocation: Invocation, forwarder: boolean, hidden: readonly string[]): string[] {
  const named = [invocation.command, ...invocation.args, ...(forwarder ? [process.execPath] : [])];
  const dirs = new Set<string>();
  // The agent's PATH there too (a clone's node_modules/.bin: its links point into node_modules, so that whole).
  for (const entry of (invocation.env.PATH ?? '').split(':')) {
    if (PRIVATE_TMP.some((tmp) => entry.startsWith(tmp)) && existsSync(entry)) dirs.add(entry.endsWith('/node_modules/.bin') ? dirname(entry) : entry);
  }
  for (const path of named) {
    if (!isAbsolute(path) || !PRIVATE_TMP.some((tmp) => path.startsWith(tmp)) || hidden.some((h) => path.startsWith(`${h}/`))) continue;
    try {
      dirs.add(statSync(path).isDirectory() ? path : dirname(path));
    } catch {
      // Not a path on this machine: nothing to make visible.
    }
  }
  // Never a directory holding what is hidden (the data directory, HOME and its secrets): binding it would show them.
  return [...dirs].filter((dir) => dir !== '/tmp' && dir !== '/var/tmp' && !hidden.some((h) => `${h}/`.startsWith(`${dir}/`)));
}

/** Wraps the invocation of `agent` working in `cwd` into its sandbox. */
export async function sandboxInvocation(invocation: Invocation, agent: string, cwd: string, context: SandboxContext): Promise<Sandboxed> {
  const { policy } = context;
  const home = invocation.env.HOME ?? process.env.HOME ?? '/root';
  // The agent's state directories exist before it starts (a first run would otherwise create them read-only:
  // nowhere, or in the private /tmp, lost with it); files (~/.claude.json) are left to the agent.
  for (const path of statePaths(agent, home, invocation.env)) {
    if (!/\.(json|backup)$/.test(path) && !existsSync(path)) mkdirSync(path, { recursive: true, mode: 0o700 });
  }
  const filtered = policy.network === 'agent' || policy.network === 'packages';
  const socketDir = filtered ? mkdtempSync(join(tmpdir(), 'ringmaster-sandbox-')) : null;
  let proxy: SandboxProxy | null = null;
  const endpoints = allowedEndpoints(policy, invocation.env);
  const loopback = endpoints.filter((e) => isLoopback(e.host));
  try {
    if (socketDir !== null) {
      // Loaded here, not at the top: node:http (and the fetch code it brings) cost every run's start-up tens of ms.
      const { startProxy } = await import('./proxy.js');
      proxy = await startProxy(join(socketDir, 'proxy.sock'), { hosts: allowedHosts(policy, agent, invocation.env), endpoints });
    }
  } catch (error) {
    if (socketDir !== null) rmSync(socketDir, { recursive: true, force: true });
    throw error;
  }
  const options = bwrapArgs({
    policy,
    agent,
    workspace: cwd,
    home,
    dataDir: context.dataDir,
    // The agent's own program stays runnable even where it lives under /tmp (private inside): its command, the
    // directories of the files its arguments name there (a script and its siblings), the Node of the forwarder.
    readable: [join(context.dataDir, 'agents'), ...(isAbsolute(invocation.command) ? [invocation.command] : []), ...programsInTmp(invocation, filtered, [context.dataDir, home]), ...context.readable],
    extraWritable: socketDir !== null ? [socketDir] : [],
    env: invocation.env,
  });
  const inner =
    socketDir === null
      ? [invocation.command, ...invocation.args]
      : [process.execPath, '-e', FORWARDER_SCRIPT, join(socketDir, 'proxy.sock'), loopback.length === 0 ? '-' : loopback.map((e) => `${e.host}:${e.port}`).join(','), invocation.command, ...invocation.args];
  return {
    invocation: { ...invocation, command: BWRAP, args: [...options, '--', ...inner] },
    finish: async () => {
      const blocked = proxy ? [...proxy.blocked] : [];
      await proxy?.close();
      if (socketDir !== null) rmSync(socketDir, { recursive: true, force: true });
      return blocked;
    },
  };
}
