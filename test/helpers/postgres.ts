// Vitest hooks around the throwaway PostgreSQL cluster: one database per test file (more on demand), on the run's
// shared cluster (test/helpers/pg-global-setup.ts; the file's databases are dropped after its last test), or on a
// cluster of the file's own (started in beforeAll, removed in afterAll) for a file that stops and starts its server.
import { connect } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { attachPgCluster, startPgCluster } from './pg-cluster.js';
import type { PgCluster } from './pg-cluster.js';

/** The file's cluster and its database URL (read them inside tests or hooks, not at import time). */
export interface PostgresFixture {
  readonly cluster: PgCluster;
  /** URL of this test file's database. */
  readonly url: string;
}

/** The shared cluster's superuser URL, from the broker of vitest's main process (it starts the cluster if need be). */
function sharedClusterUrl(): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(inject('pgSharedPort'), '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const answer = JSON.parse(text) as { url?: string; error?: string };
      if (answer.url) resolve(answer.url);
      else reject(new Error(`shared PostgreSQL cluster: ${answer.error ?? 'no answer'}`));
    });
  });
}

/**
 * The calling test file's database: on the run's shared cluster, or (`own`: a file that stops, starts or crashes
 * its server) on a cluster of its own.
 */
export function usePostgres(options: { own?: boolean } = {}): PostgresFixture {
  let cluster: PgCluster | null = null;
  let url: string | null = null;
  beforeAll(async () => {
    cluster = options.own ? await startPgCluster() : attachPgCluster(await sharedClusterUrl());
    url = await cluster.createDatabase();
  }, 120_000);
  afterAll(async () => {
    await cluster?.destroy();
  }, 60_000);
  return {
    get cluster(): PgCluster {
      if (!cluster) throw new Error('usePostgres: the cluster is not started (use it inside a test or hook)');
      return cluster;
    },
    get url(): string {
      if (!url) throw new Error('usePostgres: no database yet (use it inside a test or hook)');
      return url;
    },
  };
}

/**
 * Empties a migrated database for the next test: every table of the public schema but schema_migrations truncated,
 * identities restarted, as a new migrated database is (no migration inserts rows). Far cheaper than creating a
 * database per test (~0.3 s each). Waits 10 s at most for a lock (a store a failed test left open).
 */
export async function emptyTables(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SET lock_timeout = '10s'");
    const { rows } = await client.query<{ name: string }>("SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'");
    if (rows.length > 0) await client.query(`TRUNCATE ${rows.map((r) => r.name).join(', ')} RESTART IDENTITY CASCADE`);
  } finally {
    await client.end();
  }
}
