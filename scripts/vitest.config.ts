import { defineProject } from "vitest/config";
import { TEST_WORKER_EXEC_ARGV } from "./test-worker-flags.ts";

// Generous timeouts: the release tests start git, npm and Verdaccio on a loaded machine.
export default defineProject({
  test: {
    name: "tooling",
    // V8 flags for the test workers (scripts/test-worker-flags.ts).
    execArgv: TEST_WORKER_EXEC_ARGV,
    include: ["*.test.ts", "release/**/*.test.ts"],
    // Files share a worker (one process, its imports kept) instead of a new one each: every
    // file closes what it starts (services, databases, processes) and none mocks modules or
    // changes process-wide state. Measured on the daemon and claude-cli: 439 → 361 s.
    isolate: false,
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
