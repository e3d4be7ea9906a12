import { defineProject } from "vitest/config";
import { TEST_WORKER_EXEC_ARGV } from "../../scripts/test-worker-flags.ts";

export default defineProject({
  test: {
    name: "jvm",
    // V8 flags for the test workers (scripts/test-worker-flags.ts).
    execArgv: TEST_WORKER_EXEC_ARGV,
    include: ["*.test.ts"],
    // One JVM per case and output, plus the build: minutes on a loaded 2-core machine. The
    // bound only stops a hung run; no test asserts a duration.
    testTimeout: 1_200_000,
  },
});
