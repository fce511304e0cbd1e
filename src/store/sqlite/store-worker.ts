// Entry of the store's worker thread (see sqlite/worker-store.ts): it owns the SQLite connection and answers
// the calling thread's Store calls one message each, so a slow disk or a locked database makes the calls wait
// here, never the caller's event loop. Busy answers are retried here too (busy-retry.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { retryingBusy } from '../busy-retry.js';
import { sendError } from '../error-transfer.js';
import { sqliteLockFiles } from '../paths.js';
import { SqliteStore } from './store.js';
import { callStore, STORE_METHODS } from '../store-methods.js';
import type { Store } from '../store.js';
import type { WorkerReply, WorkerRequest, WorkerSetup } from './worker-store.js';

const port = parentPort;
if (port === null) throw new Error('sqlite-store-worker runs in a worker thread');
const setup = workerData as WorkerSetup;
const post = (reply: WorkerReply): void => port.postMessage(reply);

let store: Store | null = null;
try {
  const inner = new SqliteStore(setup.path, { backgroundCheckpoints: setup.backgroundCheckpoints });
  store = retryingBusy(inner, {
    lockFiles: sqliteLockFiles(setup.path),
    onBusy: (notice) => post({ kind: 'busy', notice }),
    ...(setup.noticeAfterMs !== undefined ? { noticeAfterMs: setup.noticeAfterMs } : {}),
  });
  post({ kind: 'ready', readOnly: inner.readOnly });
} catch (error) {
  post({ kind: 'failed', error: sendError(error) });
}

const methods = new Set<string>(STORE_METHODS);
port.on('message', (request: WorkerRequest) => {
  void answer(request);
});

async function answer(request: WorkerRequest): Promise<void> {
  try {
    if (store === null) throw new Error('the store did not open');
    if (request.method === 'close') {
      await store.close();
      post({ kind: 'result', id: request.id, ok: true, value: undefined });
      port?.close();
      return;
    }
    if (!methods.has(request.method)) throw new Error(`no store method ${request.method}`);
    const value = await callStore(store, request.method, request.args);
    post({ kind: 'result', id: request.id, ok: true, value });
  } catch (error) {
    post({ kind: 'result', id: request.id, ok: false, error: sendError(error) });
  }
}
