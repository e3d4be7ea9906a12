import { defineConfig } from "vitest/config";
import LongFilesFirstSequencer from "./scripts/long-files-first-sequencer.ts";

// One run for the whole workspace, one project per package (each package keeps its own
// vitest.config.ts). Workspace packages are resolved to their TypeScript sources through
// the "@talkide/source" export condition, so tests never depend on a stale build.
export default defineConfig({
  test: {
    projects: ["packages/*", "apps/*", "runtimes/jvm", "scripts"],
    reporters: ["default", "./scripts/summary-reporter.ts"],
    // vitest's default for a run is one worker less than the cores: on the 2-core CI machine
    // that is one, and the files ran one after another although most of their time is spent
    // waiting (leases, child processes, the network). Two files at a time keep both cores busy.
    maxWorkers: 2,
    // The files known to take minutes start first, so that they do not run alone at the end.
    sequence: { sequencer: LongFilesFirstSequencer },
    // One PostgreSQL server for the run instead of one per test file (TALKIDE_TEST_PG_URL).
    globalSetup: ["./packages/test-postgres/src/global-setup.ts"],
  },
});
