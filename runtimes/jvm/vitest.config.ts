import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "jvm",
    include: ["*.test.ts"],
    // One JVM per case and output, plus the build: minutes on a loaded 2-core machine. The
    // bound only stops a hung run; no test asserts a duration.
    testTimeout: 1_200_000,
  },
});
