import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Most test files spend their time waiting on child processes (agents, CLIs, git, a browser): two run at once even
// on a 2-core machine. The files that hold PostgreSQL servers, workers' leases and kill -9 trials run one at a
// time after them, alone, so that their deadlines (leases, takeovers) never race another file for the CPU.
const SERIAL = [
  'test/worker/**/*.test.ts',
  'test/durability/kill9-cli.test.ts',
  'test/store/kill9-resume.test.ts',
  'test/store/postgres-*.test.ts',
  'test/store/pg-cluster.test.ts',
  'test/manager/postgres-cli.test.ts',
];
const INCLUDE = ['test/**/*.test.ts', 'src/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One PostgreSQL cluster for the files that share one (started on first demand, removed at the end).
    globalSetup: ['test/helpers/pg-global-setup.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    projects: [
      { extends: true, test: { name: 'parallel', include: INCLUDE, exclude: SERIAL, maxWorkers: Math.max(2, availableParallelism()), sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'serial', include: SERIAL, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
