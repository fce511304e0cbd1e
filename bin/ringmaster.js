#!/usr/bin/env node
// Thin launcher: the CLI lives in dist/cli/main.js (built from src/cli/main.ts).
import { main } from '../dist/cli/main.js';

const code = await main(process.argv.slice(2));
process.exitCode = code;
// Once a command has returned, nothing may keep the process alive: a stdin held open by the caller, or a
// read stuck in the thread pool, ends here (stdout and stderr are synchronous for files, pipes and TTYs on Linux).
setTimeout(() => process.exit(code), 1000).unref();
