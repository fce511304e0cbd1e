// The bubblewrap command line of one sandboxed agent: the host read-only, secrets and Ringmaster's data hidden,
// the workspace (and what git needs to commit from it) and the agent's own state writable, a private /tmp,
// its own pid namespace that dies with Ringmaster, and no network unless the policy says `all`.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { AGENT_STATE, DEFAULT_HIDDEN, expandHome, type SandboxPolicy } from './policy.js';

/** What the argv of one sandbox is built from. */
export interface SandboxMountInput {
  policy: SandboxPolicy;
  agent: string;
  /** The agent's working directory (the run's workspace, or a task's worktree). */
  workspace: string;
  /** The agent's HOME. */
  home: string;
  /** Ringmaster's data directory (store, logs, other runs' files): hidden, except `readable`. */
  dataDir: string;
  /** Files and directories the agent is handed read-only (a long prompt's file, agent.auto_install's CLIs). */
  readable: readonly string[];
  /** Directories bound read-write at their own path (the proxy's socket directory). */
  extraWritable: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
}

type Kind = 'dir' | 'file' | null;

function kindOf(path: string): Kind {
  try {
    const s = statSync(path);
    return s.isDirectory() ? 'dir' : 'file';
  } catch {
    return null;
  }
}

/** The agent's state paths (AGENT_STATE): `$VAR` entries from the environment, the others under HOME. */
export function statePaths(agent: string, home: string, env: Readonly<Record<string, string | undefined>>): string[] {
  const out: string[] = [];
  for (const entry of AGENT_STATE[agent] ?? []) {
    if (entry.startsWith('$')) {
      const value = env[entry.slice(1)];
      if (value !== undefined && isAbsolute(value)) out.push(value);
    } else out.push(join(home, entry));
  }
  return out;
}

/**
 * The common git directory of a worktree (its `.git` is a file `gitdir: <repo>/.git/worktrees/<name>`), which git
 * writes to when it commits: null when the workspace is not a linked worktree.
 */
export function worktreeGitDirs(workspace: string): string[] {
  const dotGit = join(workspace, '.git');
  if (kindOf(dotGit) !== 'file') return [];
  const match = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'));
  if (!match?.[1]) return [];
  const gitDir = resolve(workspace, match[1].trim());
  const commonFile = join(gitDir, 'commondir');
  const common = existsSync(commonFile) ? resolve(gitDir, readFileSync(commonFile, 'utf8').trim()) : dirname(dirname(gitDir));
  return [gitDir, common];
}

/** The bubblewrap options (before `--` and the command) of one sandboxed agent. */
export function bwrapArgs(input: SandboxMountInput): string[] {
  const { policy, home } = input;
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--tmpfs', '/var/tmp'];
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--die-with-parent');
  if (policy.network !== 'all') args.push('--unshare-net');
  // Hidden: an empty directory over a directory, /dev/null over a file (what does not exist needs nothing).
  const hidden = [...DEFAULT_HIDDEN.map((p) => join(home, p)), ...policy.hide.map((p) => resolve(input.workspace, expandHome(p, home))), input.dataDir];
  for (const path of hidden) {
    const kind = kindOf(path);
    if (kind === 'dir') args.push('--tmpfs', path);
    else if (kind === 'file') args.push('--ro-bind', '/dev/null', path);
  }
  for (const path of input.readable) if (kindOf(path) !== null) args.push('--ro-bind', path, path);
  const writable = [
    ...statePaths(input.agent, home, input.env),
    ...policy.allowWrite.map((p) => resolve(input.workspace, expandHome(p, home))),
    ...input.extraWritable,
    ...worktreeGitDirs(input.workspace),
    input.workspace,
  ];
  const seen = new Set<string>();
  for (const path of writable) {
    if (seen.has(path) || kindOf(path) === null) continue;
    seen.add(path);
    args.push('--bind', path, path);
  }
  // Bound after the hidden paths: a workspace inside one (a worktree in the data directory) stays visible.
  // Git's hooks and config stay read-only: a hook or core.fsmonitor written there would run on the host, outside
  // the sandbox, the next time the user (not Ringmaster, which runs git without them) runs git.
  const gitDirs = [...(kindOf(join(input.workspace, '.git')) === 'dir' ? [join(input.workspace, '.git')] : []), ...worktreeGitDirs(input.workspace)];
  for (const dir of gitDirs) {
    for (const path of [join(dir, 'hooks'), join(dir, 'config')]) if (kindOf(path) !== null) args.push('--ro-bind', path, path);
  }
  args.push('--chdir', input.workspace);
  return args;
}
