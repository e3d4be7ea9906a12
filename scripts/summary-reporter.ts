import type { Reporter, TestModule } from "vitest/node";

/**
 * Prints one plain closing line, `tests: N passed, N failed, N skipped`, after vitest's own
 * summary, so any CI that reads closing lines counts the run the same way vitest does.
 * A test file that fails without a failed test (it fails to load, or a hook fails and vitest
 * reports its tests as skipped) counts as one failure: it hides every test inside it.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<unknown>,
  ): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const testModule of testModules) {
      let failedHere = 0;
      for (const testCase of testModule.children.allTests()) {
        const state = testCase.result().state;
        if (state === "passed") passed += 1;
        else if (state === "failed") failedHere += 1;
        else skipped += 1;
      }
      // A file that failed with no failed test in it (it did not load, or a beforeAll/afterAll
      // hook failed and its tests were reported as skipped) is one failure, never a skip.
      if (failedHere === 0 && testModule.state() === "failed") failedHere = 1;
      failed += failedHere;
    }
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
