// Can this machine run sandboxed agents? bubblewrap is tried once per process (a few milliseconds) and the answer,
// with why not and how to fix it, is what `doctor` prints and what `--sandbox` refuses with (exit 64).
import { spawnSync } from 'node:child_process';
import { readFileSync, accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../core/errors.js';
import type { SandboxPolicy } from './policy.js';

/** Whether sandboxing works here, and if not why and how to fix it. */
export interface SandboxSupport {
  ok: boolean;
  /** The bubblewrap binary found (`bwrap --version`), or null. */
  version: string | null;
  /** Why it does not work (null when it does). */
  problem: string | null;
  /** How to make it work (null when it does). */
  fix: string | null;
  /** Whether `sandbox.memory` / `sandbox.pids` can be enforced (cgroup v2 that Ringmaster may write), and why not. */
  caps: { ok: boolean; problem: string | null };
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return null;
  }
}

/** The cgroup v2 directory of this process, when the memory and pids controllers can be delegated to a child of it. */
export function ownCgroup(): { dir: string | null; problem: string | null } {
  const controllers = readText('/sys/fs/cgroup/cgroup.controllers');
  if (controllers === null) return { dir: null, problem: 'no cgroup v2 hierarchy at /sys/fs/cgroup (cgroup v1 or none)' };
  const line = (readText('/proc/self/cgroup') ?? '').split('\n').find((l) => l.startsWith('0::'));
  const dir = join('/sys/fs/cgroup', line?.slice(3) ?? '/');
  const available = (readText(join(dir, 'cgroup.subtree_control')) ?? '').split(' ');
  if (!available.includes('memory') || !available.includes('pids')) return { dir: null, problem: `the memory and pids controllers are not enabled for children of ${dir}` };
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    return { dir: null, problem: `${dir} is not writable by this user (run under systemd-run --user --scope -p Delegate=yes)` };
  }
  return { dir, problem: null };
}

function diagnose(stderr: string): { problem: string; fix: string } {
  const apparmor = readText('/proc/sys/kernel/apparmor_restrict_unprivileged_userns');
  if (apparmor === '1') {
    return {
      problem: 'AppArmor forbids unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1, Ubuntu 24.04 and later)',
      fix: 'allow bwrap an AppArmor profile with "userns," (see docs/sandbox.md), or: sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0',
    };
  }
  if (readText('/proc/sys/kernel/unprivileged_userns_clone') === '0' || readText('/proc/sys/user/max_user_namespaces') === '0') {
    return { problem: 'the kernel has user namespaces disabled', fix: 'sudo sysctl kernel.unprivileged_userns_clone=1 user.max_user_namespaces=15000' };
  }
  return { problem: `bwrap cannot create a sandbox here: ${stderr.trim().split('\n')[0] ?? 'unknown error'}`, fix: 'run Ringmaster where unprivileged user namespaces work (a container needs --privileged or a seccomp profile allowing them)' };
}

/** Checks the machine (uncached). */
export function probeSandbox(platform: NodeJS.Platform = process.platform, bwrap = 'bwrap'): SandboxSupport {
  const caps = ownCgroup();
  const capsState = { ok: caps.dir !== null, problem: caps.problem };
  if (platform !== 'linux') {
    const fix = platform === 'darwin' ? 'run Ringmaster in a Linux VM or container (docs/sandbox.md#macos)' : 'run Ringmaster on Linux';
    return { ok: false, version: null, problem: `sandboxing needs Linux (bubblewrap); this is ${platform}`, fix, caps: capsState };
  }
  const version = spawnSync(bwrap, ['--version'], { encoding: 'utf8', timeout: 5000 });
  if (version.error || version.status !== 0) {
    return { ok: false, version: null, problem: 'bubblewrap (bwrap) is not installed', fix: 'install it: sudo apt-get install bubblewrap (Debian, Ubuntu), sudo dnf install bubblewrap (Fedora), sudo pacman -S bubblewrap (Arch)', caps: capsState };
  }
  const tried = spawnSync(bwrap, ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--unshare-net', '--die-with-parent', '--', 'true'], { encoding: 'utf8', timeout: 10_000 });
  if (tried.status !== 0) return { ok: false, version: version.stdout.trim(), ...diagnose(tried.stderr ?? ''), caps: capsState };
  return { ok: true, version: version.stdout.trim(), problem: null, fix: null, caps: capsState };
}

let cached: SandboxSupport | null = null;

/** The machine's answer, checked once per process. */
export function sandboxSupport(): SandboxSupport {
  cached ??= probeSandbox();
  return cached;
}

/** Refuses (UserError, exit 64) a sandbox policy this machine cannot enforce: never a run without its sandbox. */
export function assertSandboxUsable(policy: SandboxPolicy, support: SandboxSupport = sandboxSupport()): void {
  if (!support.ok) throw new UserError(`--sandbox: sandboxing does not work here: ${support.problem ?? ''}; ${support.fix ?? ''} (or run without --sandbox)`);
  if ((policy.memoryBytes !== null || policy.pids !== null) && !support.caps.ok) {
    throw new UserError(`sandbox.memory / sandbox.pids are not supported here: ${support.caps.problem ?? ''} (unset them to run without caps)`);
  }
}
