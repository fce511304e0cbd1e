// The V8 heap of a process that drives an agent from the terminal (runInTerminal): bounded under a flood of output.

/**
 * Keeps the V8 heap small under a flood of short-lived agent output (a 64 KiB chunk and its text every few hundred
 * microseconds): the young generation keeps the size it has instead of growing to 16 MiB semi-spaces, and the old
 * generation is collected once it is 30 % above what was live after the last collection (V8 would let the output
 * that outlived two scavenges pile up to several times that). A 1 GiB output peaked at ~88 MiB with both, ~95 with
 * the first alone, ~120 with neither (bench/FINDINGS.md). Set once the run's modules are loaded and its store is
 * open, not at the process's start: with the young generation held at its first 1 MiB, loading those modules took
 * three times the scavenges, and a one-iteration run ~19 ms more; the few MiB the young generation grows to until
 * then stay (a 1 GiB output peaks at 84-86 MiB instead of 78-80). Only for the CLI's own process: `serve` and `worker`
 * never call this (their iteration helpers have their own limit, runner/iteration-pool.ts), nor does a library user.
 */
export function boundHeapForAgentOutput(): void {
  // The CommonJS module: `import ... from 'node:v8'` would evaluate every export of node:v8 (heap snapshots,
  // promise hooks) for two flags.
  const { setFlagsFromString } = process.getBuiltinModule('node:v8');
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--heap-growing-percent=30');
}
