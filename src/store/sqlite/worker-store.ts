// The SQLite store run in a worker thread, for processes that must stay responsive whatever the database does
// (`ringmaster serve`, `ringmaster worker`): node:sqlite is synchronous, so on the calling thread a slow disk or
// another process's lock would stop its event loop (the API, the WebSocket, every run). Here the calling thread
// holds a proxy implementing the same Store contract; each call is one message to the thread that owns the
// connection. Where the compiled worker is absent (running from TypeScript sources) it cannot start: null.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BusyNotice } from '../busy-retry.js';
import { receiveError, type SentError } from '../error-transfer.js';
import { StoreError } from '../errors.js';
import { STORE_METHODS, type StoreMethod } from '../store-methods.js';
import type { Store } from '../store.js';

const WORKER_URL = new URL('./store-worker.js', import.meta.url);

/** What the worker is started with. */
export interface WorkerSetup {
  path: string;
  backgroundCheckpoints: boolean;
  noticeAfterMs?: number;
}

/** A call to the worker. */
export interface WorkerRequest {
  id: number;
  method: StoreMethod | 'close';
  args: unknown[];
}

/** What the worker sends back. */
export type WorkerReply =
  | { kind: 'ready'; readOnly: boolean }
  | { kind: 'failed'; error: SentError }
  | { kind: 'busy'; notice: BusyNotice }
  | { kind: 'result'; id: number; ok: true; value: unknown }
  | { kind: 'result'; id: number; ok: false; error: SentError };

/** True when the compiled worker exists (it does in dist/, not in the TypeScript sources). */
export function workerStoreAvailable(): boolean {
  return existsSync(fileURLToPath(WORKER_URL));
}

/**
 * Opens the SQLite store at `path` in a worker thread; null when the compiled worker is absent. Fails like the
 * in-thread store would (StoreUnusableError, StoreVersionError) when the database cannot be opened.
 */
export async function openWorkerStore(
  path: string,
  options: {
    backgroundCheckpoints?: boolean;
    onBusy?: (notice: BusyNotice) => void;
    noticeAfterMs?: number;
    /** The compiled worker to start (tests running from sources name dist/'s). */
    workerUrl?: URL;
  } = {},
): Promise<Store | null> {
  const url = options.workerUrl ?? WORKER_URL;
  if (path === ':memory:' || !existsSync(fileURLToPath(url))) return null;
  const setup: WorkerSetup = { path, backgroundCheckpoints: options.backgroundCheckpoints === true, ...(options.noticeAfterMs !== undefined ? { noticeAfterMs: options.noticeAfterMs } : {}) };
  const { Worker } = process.getBuiltinModule('node:worker_threads'); // loaded only when a store thread starts
  // Named: the thread shows as `ringmaster-db` in `top -H`, `ps -L` and /proc/<pid>/task/*/comm.
  const worker = new Worker(url, { workerData: setup, name: 'ringmaster-db' });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let gone: Error | null = null;
  let opened: ((reply: WorkerReply) => void) | null = null;
  const ready = new Promise<WorkerReply>((resolve) => (opened = resolve));

  worker.on('message', (reply: WorkerReply) => {
    if (reply.kind === 'busy') return options.onBusy?.(reply.notice);
    if (reply.kind !== 'result') return opened?.(reply);
    const call = pending.get(reply.id);
    if (call === undefined) return;
    pending.delete(reply.id);
    // The thread keeps this process alive only while a call waits for its answer (as a socket would).
    if (pending.size === 0) worker.unref();
    if (reply.ok) call.resolve(reply.value);
    else call.reject(receiveError(reply.error));
  });
  const end = (why: string): void => {
    gone ??= new StoreError(`the store's worker thread ended (${why})`);
    opened?.({ kind: 'failed', error: { name: 'StoreError', message: gone.message, fields: {} } });
    for (const call of pending.values()) call.reject(gone);
    pending.clear();
  };
  worker.on('error', (error: Error) => end(error.message));
  worker.on('exit', (code) => end(`exit code ${code}`));

  const call = (method: StoreMethod | 'close', args: unknown[]): Promise<unknown> => {
    if (gone) return Promise.reject(gone);
    const id = nextId++;
    if (pending.size === 0) worker.ref();
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      try {
        worker.postMessage({ id, method, args } satisfies WorkerRequest);
      } catch (error) {
        // Arguments that cannot be cloned (a function, a class instance with private state): a bug of the caller.
        pending.delete(id);
        if (pending.size === 0) worker.unref();
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  };

  const first = await ready;
  if (first.kind === 'failed') {
    await worker.terminate();
    throw receiveError(first.error);
  }
  worker.unref();
  const proxy: Partial<Record<StoreMethod, (...args: unknown[]) => Promise<unknown>>> = {};
  for (const method of STORE_METHODS) proxy[method] = (...args: unknown[]) => call(method, args);
  return Object.assign(proxy as unknown as Store, {
    async close(): Promise<void> {
      if (gone) return;
      await call('close', []);
      gone = new StoreError('the store is closed');
      await worker.terminate();
    },
  });
}
