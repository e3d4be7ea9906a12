import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["@talkide/source"] },
  ssr: { resolve: { conditions: ["@talkide/source"] } },
  test: {
    name: "turn-engine",
    include: ["src/**/*.test.ts"],
    // Some tests start real processes (CLIs, databases, the pinned claude binary). On a loaded
    // 2-core machine these take far longer than vitest's 5 s default; the bounds below only
    // stop a hung test, and no test asserts a duration.
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
