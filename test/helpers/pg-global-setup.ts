// Vitest globalSetup: one PostgreSQL cluster shared by the test files that need no server of their own, started
// on first demand (a run without such a file never starts one) and removed when the run ends. It lives in
// vitest's main process: a worker cannot own it (its postmaster dies with the process that started it, and a
// worker process ends with its file). Workers ask for it on a loopback socket (test/helpers/postgres.ts).
import { createServer, type AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import { startPgCluster, type PgCluster } from './pg-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Loopback port answering one JSON line: the shared cluster's superuser URL, or why there is none. */
    pgSharedPort: number;
  }
}

/** Starts the broker; returns the teardown that removes the cluster (if one was started). */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let cluster: Promise<PgCluster> | null = null;
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    cluster ??= startPgCluster();
    cluster.then(
      (c) => socket.end(`${JSON.stringify({ url: c.url() })}\n`),
      (error: unknown) => socket.end(`${JSON.stringify({ error: String(error) })}\n`),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  project.provide('pgSharedPort', (server.address() as AddressInfo).port);
  return async () => {
    await new Promise((resolve) => server.close(resolve));
    const started = await cluster?.catch(() => null);
    await started?.destroy();
  };
}
