// Agent CLIs in Ringmaster's data directory (agents/<name>/): `ringmaster doctor --install NAME` and
// `agent.auto_install` install one there with npm, never globally; a run whose agent is not on PATH uses the copy
// there. Says what it does; one install at a time per agent.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { UserError } from '../core/errors.js';
import { redactorOf, secretsOfProcess } from '../core/redact.js';
import { ensurePrivateDir } from '../os/private-files.js';
import { acquireLock, LockHeldError } from './lock.js';
import { findAgentCli, findBinary } from '../agents/doctor.js';

/** The longest an npm install may take. */
const INSTALL_TIMEOUT_MS = 10 * 60 * 1000;
/** How often a process waiting for another's install of the same agent looks again. */
const LOCK_RETRY_MS = 250;
/** What records which package spec a directory holds (an install of another spec replaces it). */
const RECORD_FILE = 'ringmaster-install.json';

/** What the installer tells the run (shown as events). */
export interface InstallNotice {
  agent: string;
  package: string;
  dir: string;
  phase: 'installing' | 'installed';
  duration_ms: number;
}

/** Where Ringmaster installs the agent CLI `name`. */
export function agentInstallDir(dataDir: string, name: string): string {
  return join(dataDir, 'agents', name);
}

/** The binary of an agent CLI installed by Ringmaster in the data directory, or null. */
export function installedAgentBinary(dataDir: string, name: string): string | null {
  const cli = findAgentCli(name);
  if (!cli) return null;
  const path = join(agentInstallDir(dataDir, cli.name), 'node_modules', '.bin', cli.binary);
  return existsSync(path) ? path : null;
}

/**
 * Makes sure the agent CLIs `names` can be run: those not on PATH whose package is on npm are installed (or found
 * installed) in the data directory. `autoInstall` is true (the agent's own package) or an npm package spec to
 * install instead (a pinned version, a tarball). Returns the bin directories to put first on PATH.
 * Throws UserError when an install fails (npm's own message, secrets redacted).
 */
export async function ensureAgentClis(
  names: readonly string[],
  autoInstall: true | string,
  dataDir: string,
  env: Readonly<Record<string, string | undefined>>,
  notify: (notice: InstallNotice) => void,
): Promise<string[]> {
  const dirs: string[] = [];
  for (const name of new Set(names)) {
    const cli = findAgentCli(name);
    if (!cli?.npmPackage || findBinary(cli.binary, env, []) !== null) continue;
    const spec = autoInstall === true ? cli.npmPackage : autoInstall;
    const dir = agentInstallDir(dataDir, cli.name);
    const binDir = join(dir, 'node_modules', '.bin');
    await withInstallLock(dir, async () => {
      if (existsSync(join(binDir, cli.binary)) && recordedSpec(dir) === spec) return;
      const started = Date.now();
      const notice = { agent: cli.name, package: spec, dir };
      notify({ ...notice, phase: 'installing', duration_ms: 0 });
      await npmInstall(spec, dir, env);
      if (!existsSync(join(binDir, cli.binary))) {
        throw new UserError(`agent.auto_install: npm installed ${spec} into ${dir}, but it has no '${cli.binary}' command`);
      }
      writeFileSync(join(dir, RECORD_FILE), `${JSON.stringify({ package: spec, installed_at: new Date().toISOString() })}\n`, { mode: 0o600 });
      notify({ ...notice, phase: 'installed', duration_ms: Date.now() - started });
    });
    dirs.push(binDir);
  }
  return dirs;
}

/**
 * The bin directories a run puts first on PATH for its agents `names`: with `autoInstall` (true or a package spec)
 * those missing are installed first (ensureAgentClis); without it, the copies already installed in the data
 * directory (by `doctor --install` or an earlier auto-install) of the agents not on PATH.
 */
export async function agentBinDirs(
  names: readonly string[],
  autoInstall: boolean | string | undefined,
  dataDir: string,
  env: Readonly<Record<string, string | undefined>>,
  notify: (notice: InstallNotice) => void,
): Promise<string[]> {
  if (autoInstall !== undefined && autoInstall !== false) return ensureAgentClis(names, autoInstall, dataDir, env, notify);
  const dirs: string[] = [];
  for (const name of new Set(names)) {
    const cli = findAgentCli(name);
    const binary = cli && findBinary(cli.binary, env, []) === null ? installedAgentBinary(dataDir, cli.name) : null;
    if (binary !== null) dirs.push(dirname(binary));
  }
  return dirs;
}

/** `env` with `binDirs` first on its PATH. */
export function withBinDirs(env: Readonly<Record<string, string | undefined>>, binDirs: readonly string[]): Record<string, string | undefined> {
  if (binDirs.length === 0) return { ...env };
  return { ...env, PATH: [...binDirs, ...(env.PATH ? [env.PATH] : [])].join(delimiter) };
}

function recordedSpec(dir: string): string | null {
  try {
    const record = JSON.parse(readFileSync(join(dir, RECORD_FILE), 'utf8')) as { package?: unknown };
    return typeof record.package === 'string' ? record.package : null;
  } catch {
    return null;
  }
}

/** Runs `fn` holding the install lock of `dir` (other runs, in this process or others, wait for it). */
async function withInstallLock(dir: string, fn: () => Promise<void>): Promise<void> {
  ensurePrivateDir(dir);
  const path = join(dir, '.install.lock');
  const deadline = Date.now() + INSTALL_TIMEOUT_MS + 60_000;
  for (;;) {
    try {
      const lock = await acquireLock(path, 'agent-install');
      try {
        await fn();
      } finally {
        await lock.release();
      }
      return;
    } catch (error) {
      if (!(error instanceof LockHeldError) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
    }
  }
}

/** `npm install --prefix dir spec`, argv only (no shell), bounded in time; its failure as a UserError. */
function npmInstall(spec: string, dir: string, env: Readonly<Record<string, string | undefined>>): Promise<void> {
  const npm = findBinary('npm', env, [dirname(process.execPath)]);
  if (npm === null) return Promise.reject(new UserError('agent.auto_install: npm is not on PATH (install Node.js with npm, or install the agent CLI yourself)'));
  const args = ['install', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=error', spec];
  const redact = redactorOf(secretsOfProcess([npm, ...args], env));
  return new Promise((resolve, reject) => {
    execFile(npm, args, { cwd: dir, env: { ...env }, timeout: INSTALL_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024 }, (error, _stdout, stderr) => {
      if (!error) return resolve();
      const said = redact(`${stderr}`.trim().split('\n').slice(-5).join(' | '));
      const why = error.killed ? `took longer than ${INSTALL_TIMEOUT_MS / 60_000} min` : `npm exited with ${String(error.code ?? 'an error')}`;
      reject(new UserError(`agent.auto_install: installing ${spec} into ${dir} failed (${why})${said ? `: ${said}` : ''}`));
    });
  });
}
