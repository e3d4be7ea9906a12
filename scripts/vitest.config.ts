import { defineProject } from "vitest/config";

// Generous timeouts: the release tests start git, npm and Verdaccio on a loaded machine.
export default defineProject({
  test: {
    name: "tooling",
    include: ["*.test.ts", "release/**/*.test.ts"],
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
