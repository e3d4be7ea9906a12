import { defineProject } from "vitest/config";
import { TEST_WORKER_EXEC_ARGV } from "../../scripts/test-worker-flags.ts";

// Unit tests of the console's pure modules. The console is driven in a real browser by
// apps/be's console suite (src/http/console.browser.test.ts), against the real backend.
export default defineProject({
  test: {
    name: "console",
    // V8 flags for the test workers (scripts/test-worker-flags.ts).
    execArgv: TEST_WORKER_EXEC_ARGV,
    include: ["src/**/*.test.ts"],
  },
});
