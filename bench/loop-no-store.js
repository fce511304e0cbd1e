// The loop alone, through the library (runLoop without the CLI's store, lock and checkpoints): run by
// bench/overhead.js next to the CLI so the cost of recording every iteration in SQLite shows on its own.
// Usage: node bench/loop-no-store.js <iterations> <agent> <workspace>; prints {"loop_ms": N} on stdout.
import { abortableSleep, resolveRun, runLoop } from '../dist/index.js';

const [n, agent, cwd] = process.argv.slice(2);
const { spec } = resolveRun(cwd, {}, {
  maxIterations: n,
  settings: [
    { key: 'agent.command', flag: '--agent-command', raw: agent },
    { key: 'loop.checkpoint_interval', flag: '--checkpoint-interval', raw: '0' },
  ],
});
let started = 0;
let finished = 0;
await runLoop(spec, {
  now: Date.now,
  newRunId: () => `bench-${Date.now()}`,
  sleep: abortableSleep,
  env: process.env,
  onEvent: (e) => {
    if (e.type === 'run_started') started = e.time;
    if (e.type === 'run_finished') finished = e.time;
  },
  signal: new AbortController().signal,
});
process.stdout.write(`${JSON.stringify({ loop_ms: finished - started })}\n`);
