// Vitest hooks around the throwaway PostgreSQL cluster: one cluster per test file (started in beforeAll,
// removed in afterAll, whatever the outcome), one database per test file, more on demand.
import { afterAll, beforeAll } from 'vitest';
import { startPgCluster } from './pg-cluster.js';
import type { PgCluster } from './pg-cluster.js';

/** The file's cluster and its database URL (read them inside tests or hooks, not at import time). */
export interface PostgresFixture {
  readonly cluster: PgCluster;
  /** URL of this test file's database. */
  readonly url: string;
}

/** Starts a cluster for the calling test file and creates its database. */
export function usePostgres(): PostgresFixture {
  let cluster: PgCluster | null = null;
  let url: string | null = null;
  beforeAll(async () => {
    cluster = await startPgCluster();
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
