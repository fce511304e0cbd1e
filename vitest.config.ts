import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One PostgreSQL cluster for the files that share one (started on first demand, removed at the end).
    globalSetup: ['test/helpers/pg-global-setup.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
