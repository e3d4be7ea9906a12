import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["@talkide/source"] },
  ssr: { resolve: { conditions: ["@talkide/source"] } },
  test: {
    name: "daemon",
    include: ["src/**/*.test.ts"],
    // Suites start real daemons, databases and child processes. These bounds only stop a
    // broken build from hanging; no test asserts a duration.
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
