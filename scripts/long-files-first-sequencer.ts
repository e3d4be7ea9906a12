import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The test files that take longest on an idle 2-core machine (measured with vitest's JSON
 * reporter, set-up included), in the order they should start. vitest's own order groups files
 * by project name, which put long files at the very end of a run, where one of them ran alone
 * for minutes while the other workers had nothing left to do. Started first, they overlap with
 * the rest. A path here that no longer exists is ignored.
 */
const LONG_FILES = [
  "apps/daemon/src/suites/sessions.pglite.test.ts",
  "scripts/release/release.test.ts",
  "apps/hub/src/routing.pglite.test.ts",
  "packages/work-queue/src/work-queue.embedded.test.ts",
  "apps/daemon/src/suites/crash.pglite.test.ts",
  "apps/daemon/src/suites/warm-turns.test.ts",
  "apps/be/src/agent/warm-turns.test.ts",
  "apps/daemon/src/suites/sessions.postgres.test.ts",
  "apps/be/src/agent/turns.test.ts",
  "apps/daemon/src/suites/crash.postgres.test.ts",
  "runtimes/kotlin/conformance.test.ts",
  // Short, but most of it waits out real leases: it ended many runs alone.
  "packages/work-queue/src/work-queue.server.test.ts",
];

/** vitest's order (by previous durations, else size), with the known long files first. */
export default class LongFilesFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const index = LONG_FILES.indexOf(relative(this.ctx.config.root, spec.moduleId));
      return index === -1 ? LONG_FILES.length : index;
    };
    // Array.prototype.sort is stable: everything else keeps vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
