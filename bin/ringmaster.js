#!/usr/bin/env node
// Launcher: the CLI lives in dist/cli/main.js (built from src/cli/main.ts) and needs Node 24 (node:sqlite,
// recent APIs). Plain JavaScript that any Node from 20 on parses. Run by a Node 24 or newer it imports the
// CLI in this same process. Run by an older Node it starts the Node 24 that the package ships as a
// platform-specific optional dependency (node-<platform>-<arch>, docs/install.md) on this same file, with the
// same arguments and terminal, and mirrors it: signals forwarded, its exit code or signal returned; the child
// ends itself if this launcher is killed outright (see watchLauncher).
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants, homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REQUIRED_MAJOR = 24;
/** Set by the launcher for the Node 24 it starts: its own pid, so the child can tell when it is gone. */
const LAUNCHER_ENV = 'RINGMASTER_LAUNCHER_PID';
const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** The Node 24 shipped with the package for this platform, or null when npm did not install one. */
function bundledNode() {
  const name = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
  try {
    const manifest = createRequire(import.meta.url).resolve(`${name}/package.json`);
    const binary = join(dirname(manifest), 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
    return existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

/** Runs `node` on this file with the same arguments, and exits the way it exits. */
async function delegate(node) {
  // Loaded here: node:child_process brings net, dgram and streams (~3 ms of start-up) that Node 24 never needs.
  const { spawn } = await import('node:child_process');
  const child = spawn(node, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, [LAUNCHER_ENV]: String(process.pid) },
  });
  // A signal sent to this process alone (`kill PID`) must reach the CLI; one the terminal sent to the whole
  // process group reaches it twice, which the CLI takes as one (processIO in src/cli/main.ts).
  const forward = (signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of FORWARDED) process.on(signal, forward);
  child.on('error', (error) => {
    process.stderr.write(`ringmaster: could not start the Node.js ${REQUIRED_MAJOR} at ${node}: ${error.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    for (const s of FORWARDED) process.off(s, forward);
    if (signal !== null) {
      // Die of the same signal, so a shell or supervisor sees what the CLI saw (or, for a signal Node ignores,
      // exit with the shell's number for it).
      process.kill(process.pid, signal);
      process.exit(128 + (constants.signals[signal] ?? 0));
    }
    process.exit(code ?? 1);
  });
}

/** In the child: when the launcher dies without a word (kill -9), stop as if it had been sent SIGTERM. */
function watchLauncher(launcherPid) {
  const timer = setInterval(() => {
    if (process.ppid === launcherPid) return;
    clearInterval(timer);
    process.kill(process.pid, 'SIGTERM');
  }, 500);
  timer.unref();
}

/**
 * The CLI's entry: the bundle (scripts/bundle-cli.js, a few files instead of ~300: faster start-up) when it is at
 * least as new as dist/ as tsc wrote it, else dist/ itself (a `tsc` without the bundle step must not run old code).
 */
function cliEntry() {
  const time = (path) => statSync(new URL(path, import.meta.url), { throwIfNoEntry: false })?.mtimeMs ?? null;
  const bundled = time('../dist/bundle/main.js');
  const compiled = time('../dist/cli/main.js');
  return bundled !== null && (compiled === null || bundled >= compiled) ? '../dist/bundle/main.js' : '../dist/cli/main.js';
}

const major = Number(process.versions.node.split('.')[0]);
if (!(major >= REQUIRED_MAJOR)) {
  const node = bundledNode();
  if (node === null) {
    process.stderr.write(
      `ringmaster: Node.js ${REQUIRED_MAJOR} or newer is needed, and this is Node.js ${process.versions.node} (${process.execPath}), ` +
        `and no Node.js ${REQUIRED_MAJOR} came with this installation (npm installs one on Linux and macOS, x64 and arm64, unless told to leave optional dependencies out). ` +
        `Install Node ${REQUIRED_MAJOR} (https://nodejs.org, or 'nvm install ${REQUIRED_MAJOR}'), or reinstall Ringmaster without omitting it.\n`,
    );
    process.exit(64);
  }
  await delegate(node);
} else {
  const launcherPid = Number(process.env[LAUNCHER_ENV]);
  delete process.env[LAUNCHER_ENV];
  if (Number.isInteger(launcherPid) && launcherPid > 0) watchLauncher(launcherPid);
  // V8's compiled code of Ringmaster's modules (and zod's, yaml's) is cached on disk (Node's compile cache, in the
  // user's cache directory, $XDG_CACHE_HOME/ringmaster, unless NODE_COMPILE_CACHE says where): a short command such
  // as `hook stop`, run at every turn of a Claude Code session, starts without compiling ~250 modules again. A
  // cache that cannot be written is ignored by Node (the status it returns says so; nothing is thrown).
  const { enableCompileCache } = await import('node:module');
  const cacheHome = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  enableCompileCache?.(process.env.NODE_COMPILE_CACHE || join(cacheHome, 'ringmaster', 'node-compile-cache'));
  const { main } = await import(cliEntry());
  const code = await main(process.argv.slice(2));
  process.exitCode = code;
  // Once a command has returned, nothing may keep the process alive: a stdin held open by the caller, or a
  // read stuck in the thread pool, ends here (stdout and stderr are synchronous for files, pipes and TTYs on Linux).
  setTimeout(() => process.exit(code), 1000).unref();
}
