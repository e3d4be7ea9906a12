import { defineProject } from "vitest/config";
import { TEST_WORKER_EXEC_ARGV } from "../../scripts/test-worker-flags.ts";

export default defineProject({
  resolve: { conditions: ["@talkide/source"] },
  ssr: { resolve: { conditions: ["@talkide/source"] } },
  test: {
    name: "daemon",
    // V8 flags for the test workers (scripts/test-worker-flags.ts).
    execArgv: TEST_WORKER_EXEC_ARGV,
    include: ["src/**/*.test.ts"],
    // Files share a worker (one process, its imports kept) instead of a new one each: every
    // file closes what it starts (services, databases, processes) and none mocks modules or
    // changes process-wide state. Measured on the daemon and claude-cli: 439 → 361 s.
    isolate: false,
    // Suites start real daemons, databases and child processes. These bounds only stop a
    // broken build from hanging; no test asserts a duration.
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
