import { defineProject } from "vitest/config";
import { TEST_WORKER_EXEC_ARGV } from "../../scripts/test-worker-flags.ts";

export default defineProject({
  test: {
    name: "kotlin",
    // V8 flags for the test workers (scripts/test-worker-flags.ts).
    execArgv: TEST_WORKER_EXEC_ARGV,
    include: ["*.test.ts"],
    // Two kotlinc runs (about 15 s of CPU each), the runner's JVMs and JUnit: minutes on a
    // loaded 2-core machine. The bound only stops a hung run; no test asserts a duration.
    testTimeout: 1_200_000,
  },
});
