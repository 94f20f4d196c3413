// Prints one plain closing line, "tests: N passed, N failed[, N skipped]", that CI
// tooling reads regardless of which test runner produced it; before it, one "FLAKY" line per
// test that failed and then passed on a retry (CI retries integration tests once: see
// vitest.config.ts), with the first error it threw, so a flake is seen and fixed, not hidden.
import type { Reporter, TestCase, TestModule } from 'vitest/node';

/** `file > describe > test`, and the first line of the error the failed try threw */
export function flakyLine(t: TestCase): string {
  const r = t.result();
  const first = r.state === 'passed' ? r.errors?.[0] : undefined;
  const why = first ? `: ${(first.message ?? String(first)).split('\n')[0].slice(0, 200)}` : '';
  return `FLAKY ${t.module.relativeModuleId} > ${t.fullName} (passed on try ${t.diagnostic()!.retryCount + 1})${why}`;
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const flaky: string[] = [];
    for (const m of modules) {
      for (const t of m.children.allTests()) {
        const state = t.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
        if (state === 'passed' && t.diagnostic()?.flaky) flaky.push(flakyLine(t));
      }
      // a file that failed outside its tests (import error, failing beforeAll) counts as a failure
      const failedInside = [...m.children.allTests()].some((t) => t.result().state === 'failed');
      if (m.state() === 'failed' && !failedInside) failed++;
    }
    const line = `vitest: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}${flaky.length ? `, ${flaky.length} flaky` : ''}`;
    process.stdout.write(`\n${flaky.map((f) => `${f}\n`).join('')}${line}\n`);
  }
}
