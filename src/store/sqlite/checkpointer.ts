// Background WAL checkpoints for a SQLite store written to hundreds of times a second (`ringmaster serve`): the
// store's own connection stops checkpointing (wal_autocheckpoint = 0) and a worker thread does it instead.
// Where the compiled worker is absent (running from TypeScript sources), nothing changes.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const WORKER_URL = new URL('./checkpoint-worker.js', import.meta.url);

/** A running checkpoint thread; stop() checkpoints once more and ends it. */
export interface Checkpointer {
  stop(): Promise<void>;
}

/** Starts checkpointing the database at `path` every `intervalMs` from a worker thread, or returns null when it cannot. */
export function startCheckpointer(path: string, intervalMs = 1000): Checkpointer | null {
  if (path === ':memory:' || !existsSync(fileURLToPath(WORKER_URL))) return null;
  const { Worker } = process.getBuiltinModule('node:worker_threads'); // loaded only when a checkpointer starts
  const worker = new Worker(WORKER_URL, { workerData: { path, intervalMs } });
  worker.unref();
  return {
    async stop() {
      await new Promise<void>((resolve) => {
        const done = (): void => resolve();
        worker.once('message', done);
        worker.once('exit', done);
        worker.postMessage('stop');
      });
      await worker.terminate();
    },
  };
}
