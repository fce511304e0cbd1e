// Process helpers for the benchmarks: spawn-and-wait with timing, /proc readings (RSS, liveness, groups).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (bench/lib/ -> ../..). */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The pinned Node that runs this script (npm run bench puts node_modules/.bin first on PATH). */
export const NODE = process.execPath;
/** The ringmaster CLI launcher. */
export const CLI = join(ROOT, 'bin', 'ringmaster.js');
/** Directory of the bench agents. */
export const AGENTS = join(ROOT, 'bench', 'agents');

/** Resolves after `ms` milliseconds. */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Milliseconds from a monotonic clock. */
export const now = () => Number(process.hrtime.bigint()) / 1e6;

/**
 * Runs a command to its end; resolves { code, signal, ms, stdout, stderr }.
 * stdout/stderr are captured only when `capture` is true (otherwise discarded).
 */
export function run(command, args, { cwd, env, capture = false, onSpawn } = {}) {
  return new Promise((resolve, reject) => {
    const started = now();
    const child = spawn(command, args, { cwd, env: env ?? process.env, stdio: ['ignore', capture ? 'pipe' : 'ignore', capture ? 'pipe' : 'ignore'] });
    const out = [];
    const err = [];
    if (capture) {
      child.stdout.on('data', (c) => out.push(c));
      child.stderr.on('data', (c) => err.push(c));
    }
    child.on('error', reject);
    onSpawn?.(child);
    child.on('close', (code, signal) => {
      resolve({ code, signal, ms: now() - started, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

/** Fields of /proc/<pid>/status as kB numbers (VmHWM, VmRSS) or null when the process is gone. */
export function memoryOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name) => {
      const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
      return m ? Number(m[1]) : null;
    };
    return { hwmKb: field('VmHWM'), rssKb: field('VmRSS') };
  } catch {
    return null;
  }
}

/** State letter and process group of a pid from /proc/<pid>/stat, or null when gone. */
function statOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: rest[0], ppid: Number(rest[1]), pgrp: Number(rest[2]) };
  } catch {
    return null;
  }
}

/** True while the pid exists and is not a zombie (a zombie has released everything but its pid). */
export function aliveNonZombie(pid) {
  const s = statOf(pid);
  return s !== null && s.state !== 'Z' && s.state !== 'X';
}

/** Live (non-zombie) pids whose process group is `pgid`. */
export function groupMembers(pgid) {
  const members = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const s = statOf(Number(entry));
    if (s && s.pgrp === pgid && s.state !== 'Z' && s.state !== 'X') members.push(Number(entry));
  }
  return members;
}

/** Direct children of a pid (Linux /proc/<pid>/task/<pid>/children). */
export function childrenOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Median of a list of numbers (mean of the middle two for even lengths). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Median, min, max and count of a list, rounded to `digits` decimals. */
export function summary(values, digits = 2) {
  const r = (x) => Math.round(x * 10 ** digits) / 10 ** digits;
  return { median: r(median(values)), min: r(Math.min(...values)), max: r(Math.max(...values)), n: values.length };
}

/** Parses JSON-lines output, skipping anything that is not a JSON object. */
export function jsonLines(text) {
  const events = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      events.push(JSON.parse(line));
    } catch {
      // not an event line
    }
  }
  return events;
}

/** Machine facts recorded with every result. */
export function machine() {
  let cpu = 'unknown';
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpu;
  } catch {
    // not Linux
  }
  let memTotalMb = null;
  try {
    memTotalMb = Math.round(Number(/^MemTotal:\s+(\d+)/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1]) / 1024);
  } catch {
    // not Linux
  }
  let kernel = 'unknown';
  try {
    kernel = readFileSync('/proc/sys/kernel/osrelease', 'utf8').trim();
  } catch {
    // not Linux
  }
  return { nproc: availableParallelism(), cpu, memTotalMb, kernel, node: process.version, platform: `${process.platform}-${process.arch}` };
}
