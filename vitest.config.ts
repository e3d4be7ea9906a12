import { defineConfig } from "vitest/config";

// One run for the whole workspace, one project per package (each package keeps its own
// vitest.config.ts). Workspace packages are resolved to their TypeScript sources through
// the "@talkide/source" export condition, so tests never depend on a stale build.
export default defineConfig({
  test: {
    projects: ["packages/*", "apps/*", "runtimes/jvm", "scripts"],
    reporters: ["default", "./scripts/summary-reporter.ts"],
  },
});
