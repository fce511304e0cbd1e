#!/usr/bin/env node
// Thin launcher: the CLI lives in dist/cli/main.js (built from src/cli/main.ts). Written for any Node: the
// version is checked before anything of Ringmaster is loaded (it needs Node 24: node:sqlite, recent APIs).
const REQUIRED_MAJOR = 24;
const major = Number(process.versions.node.split('.')[0]);
if (!(major >= REQUIRED_MAJOR)) {
  process.stderr.write(
    `ringmaster: Node.js ${REQUIRED_MAJOR} or newer is needed, and this is Node.js ${process.versions.node} (${process.execPath}). ` +
      `Install Node ${REQUIRED_MAJOR} (https://nodejs.org, or 'nvm install ${REQUIRED_MAJOR}'), or, in a clone of Ringmaster, use the Node ${REQUIRED_MAJOR} that 'npm install' pinned: node_modules/.bin/node bin/ringmaster.js ...\n`,
  );
  process.exit(64);
}

// V8's compiled code of Ringmaster's modules (and zod's, yaml's) is cached on disk (Node's compile cache, in the
// temporary directory unless NODE_COMPILE_CACHE says where): a short command such as `hook stop`, run at every
// turn of a Claude Code session, starts without compiling ~250 modules again. A cache that cannot be written is
// ignored by Node (the status it returns says so; nothing is thrown).
const { enableCompileCache } = await import('node:module');
enableCompileCache?.();
const { main } = await import('../dist/cli/main.js');
const code = await main(process.argv.slice(2));
process.exitCode = code;
// Once a command has returned, nothing may keep the process alive: a stdin held open by the caller, or a
// read stuck in the thread pool, ends here (stdout and stderr are synchronous for files, pipes and TTYs on Linux).
setTimeout(() => process.exit(code), 1000).unref();
