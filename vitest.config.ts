import { defineConfig } from "vitest/config";

// One run for the whole workspace, one project per package (each package keeps its own
// vitest.config.ts). Workspace packages are resolved to their TypeScript sources through
// the "@talkide/source" export condition, so tests never depend on a stale build.
export default defineConfig({
  test: {
    projects: ["packages/*", "apps/*", "runtimes/jvm", "scripts"],
    reporters: ["default", "./scripts/summary-reporter.ts"],
    // Files run one at a time (vitest's default on 2 cores). A root `maxWorkers` does not reach
    // the projects in vitest 5 (measured: the sum of the files' times equalled the run's), and
    // running these suites side by side is untried: several of them watch the machine's own
    // processes (leftover, orphan and kill -9 suites), so that needs its own change.
    // One PostgreSQL server for the run instead of one per test file (TALKIDE_TEST_PG_URL).
    globalSetup: ["./packages/test-postgres/src/global-setup.ts"],
  },
});
