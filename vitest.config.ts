import { defineConfig } from 'vitest/config';

// Most test files spend their time waiting on child processes (agents, CLIs, git, a browser), so the 'parallel'
// project runs two files at a time on this 2-core machine (RINGMASTER_TEST_WORKERS=N for N; 1 runs them one by one).
// The files that hold PostgreSQL servers of their own that they stop, workers' leases and kill -9 trials always run
// one at a time, after the others (a kill -9 task test failed once with two at once before it joined them).
const SERIAL = [
  'test/worker/**/*.test.ts',
  'test/durability/kill9-cli.test.ts',
  'test/store/kill9-resume.test.ts',
  'test/store/postgres-*.test.ts',
  'test/store/pg-cluster.test.ts',
  'test/manager/postgres-cli.test.ts',
  'test/tasks/task-parallel-resume.test.ts',
  'test/tasks/task-resume.test.ts',
];
const WORKERS = Math.max(1, Number(process.env.RINGMASTER_TEST_WORKERS ?? '2') || 2);
const INCLUDE = ['test/**/*.test.ts', 'src/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One PostgreSQL cluster for the files that share one (started on first demand, removed at the end).
    globalSetup: ['test/helpers/tmp-global-setup.ts', 'test/helpers/pg-global-setup.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    projects: [
      { extends: true, test: { name: 'parallel', include: INCLUDE, exclude: SERIAL, maxWorkers: WORKERS, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'serial', include: SERIAL, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
