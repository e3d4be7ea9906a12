import { defineProject } from "vitest/config";
import { TEST_WORKER_EXEC_ARGV } from "../../scripts/test-worker-flags.ts";

export default defineProject({
  resolve: { conditions: ["@talkide/source"] },
  ssr: { resolve: { conditions: ["@talkide/source"] } },
  test: {
    name: "gateway",
    // V8 flags for the test workers (scripts/test-worker-flags.ts).
    execArgv: TEST_WORKER_EXEC_ARGV,
    include: ["src/**/*.test.ts"],
    // Files share a worker (one process, its imports kept) instead of a new one each: every
    // file closes what it starts (services, databases, processes) and none mocks modules or
    // changes process-wide state. Measured on the daemon and claude-cli: 439 → 361 s.
    isolate: false,
    // Some tests start real processes (CLIs, databases, the pinned claude binary). On a loaded
    // 2-core machine these take far longer than vitest's 5 s default; the bounds below only
    // stop a hung test, and no test asserts a duration.
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
