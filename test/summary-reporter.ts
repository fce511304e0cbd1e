// Prints one plain closing line, "Tests: N passed, N failed, N skipped", after vitest's own summary,
// so any CI reading the log can count tests without knowing vitest's format; before it, the slowest test
// files (wall time of their tests and hooks), so every CI log says where the suite's time goes.
import type { Reporter, TestModule } from 'vitest/node';

const SLOWEST = 15;

/** Vitest reporter adding the slowest files and the plain summary line. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
    }
    process.stdout.write(slowestFiles(testModules));
    process.stdout.write(`\nTests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}

function slowestFiles(testModules: ReadonlyArray<TestModule>): string {
  const timed = testModules
    .map((module) => ({ file: module.relativeModuleId, ms: module.diagnostic().duration }))
    .sort((a, b) => b.ms - a.ms);
  const total = timed.reduce((sum, row) => sum + row.ms, 0);
  const lines = timed.slice(0, SLOWEST).map((row) => `  ${(row.ms / 1000).toFixed(1).padStart(6)} s  ${row.file}`);
  return `\nSlowest test files (of ${timed.length}, ${(total / 1000).toFixed(0)} s in all):\n${lines.join('\n')}\n`;
}
