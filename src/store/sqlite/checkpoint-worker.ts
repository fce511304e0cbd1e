// Entry of the checkpoint thread of a busy SQLite store (see sqlite/checkpointer.ts): its own connection runs a
// PASSIVE WAL checkpoint every interval, so the copying and the fsync it implies never stall the writer's thread.
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

const { path, intervalMs } = workerData as { path: string; intervalMs: number };
const db = new DatabaseSync(path);
db.exec('PRAGMA busy_timeout = 5000');
const checkpoint = (): void => {
  try {
    db.exec('PRAGMA wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or closing: the next interval tries again.
  }
};
const timer = setInterval(checkpoint, intervalMs);
parentPort?.on('message', (message: unknown) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort?.postMessage('stopped');
});
