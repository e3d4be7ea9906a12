import { defineProject } from "vitest/config";

// Generous timeouts: the release tests start git, npm and Verdaccio on a loaded machine.
export default defineProject({
  test: {
    name: "tooling",
    include: ["*.test.ts", "release/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
