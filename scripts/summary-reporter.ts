// Prints one plain closing line, "tests: N passed, N failed[, N skipped]", that CI
// tooling reads regardless of which test runner produced it; before it, one "FLAKY" line per
// test that failed and then passed on a retry (CI retries integration tests once: see
// vitest.config.ts), with the first error it threw, so a flake is seen and fixed, not hidden.
import type { Reporter, TestCase, TestModule } from 'vitest/node';

/** lines of a failed try's error shown under its FLAKY line (a property's counterexample, its error) */
const DETAIL_LINES = 12;

/**
 * `FLAKY file > describe > test (passed on try N): <first line of the error>`, then up to
 * DETAIL_LINES more lines of that error, each starting `FLAKY   ` (fast-check's first line is
 * only "Property failed after N tests"; its counterexample and error come after)
 */
export function flakyLines(t: TestCase): string[] {
  const r = t.result();
  const first = r.state === 'passed' ? r.errors?.[0] : undefined;
  // fast-check's error says what the property threw only in its cause
  const cause = first?.cause?.message ? `\ncaused by: ${first.cause.message}` : '';
  const text = first ? `${first.message ?? String(first)}${cause}` : '';
  const [head = '', ...rest] = text.split('\n');
  const line = `FLAKY ${t.module.relativeModuleId} > ${t.fullName} (passed on try ${t.diagnostic()!.retryCount + 1})${head ? `: ${head.slice(0, 200)}` : ''}`;
  const detail = rest
    .filter((l) => l.trim())
    .slice(0, DETAIL_LINES)
    .map((l) => `FLAKY   ${l.slice(0, 300)}`);
  return [line, ...detail];
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const flaky: string[] = [];
    let flakyTests = 0;
    for (const m of modules) {
      for (const t of m.children.allTests()) {
        const state = t.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
        if (state === 'passed' && t.diagnostic()?.flaky) {
          flakyTests++;
          flaky.push(...flakyLines(t));
        }
      }
      // a file that failed outside its tests (import error, failing beforeAll) counts as a failure
      const failedInside = [...m.children.allTests()].some((t) => t.result().state === 'failed');
      if (m.state() === 'failed' && !failedInside) failed++;
    }
    const line = `vitest: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}${flakyTests ? `, ${flakyTests} flaky` : ''}`;
    process.stdout.write(`\n${flaky.map((f) => `${f}\n`).join('')}${line}\n`);
  }
}
