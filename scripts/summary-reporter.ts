// Prints one plain closing line, "tests: N passed, N failed[, N skipped]", that CI
// tooling reads regardless of which test runner produced it.
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const m of modules) {
      for (const t of m.children.allTests()) {
        const state = t.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      // a file that failed outside its tests (import error, failing beforeAll) counts as a failure
      const failedInside = [...m.children.allTests()].some((t) => t.result().state === 'failed');
      if (m.state() === 'failed' && !failedInside) failed++;
    }
    const line = `vitest: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
    process.stdout.write(`\n${line}\n`);
  }
}
