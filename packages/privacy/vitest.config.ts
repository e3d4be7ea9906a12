import { defineProject } from "vitest/config";
import { TEST_WORKER_EXEC_ARGV } from "../../scripts/test-worker-flags.ts";

export default defineProject({
  resolve: { conditions: ["@talkide/source"] },
  ssr: { resolve: { conditions: ["@talkide/source"] } },
  test: {
    name: "privacy",
    // V8 flags for the test workers (scripts/test-worker-flags.ts).
    execArgv: TEST_WORKER_EXEC_ARGV,
    include: ["src/**/*.test.ts"],
    // Pure modules and child processes, no global state left behind by a file: its files share
    // a worker instead of paying a fresh one (spawn and imports) each.
    isolate: false,
    // Some tests start real processes (CLIs, databases, the pinned claude binary). On a loaded
    // 2-core machine these take far longer than vitest's 5 s default; the bounds below only
    // stop a hung test, and no test asserts a duration.
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
