import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import LongFilesFirstSequencer from "./scripts/long-files-first-sequencer.ts";
import { testTempRoot } from "./scripts/test-tmpdir.ts";

// Every test spawns Node processes of its own (CLIs, services, conformance commands, one per
// case): with Node's on-disk compile cache each of them reuses the type-stripped, compiled
// modules of the ones before instead of compiling them again (measured: a spec-render spawn
// from about 0.48 to 0.18 s of CPU). Test workers and their children inherit the variable.
// A directory of the checkout, so a fresh clone starts empty and nothing outside it is written.
process.env["NODE_COMPILE_CACHE"] ??= fileURLToPath(
  new URL("./node_modules/.cache/node-compile-cache", import.meta.url),
);

// Temporary files on a RAM file system when the machine has one (see test-tmpdir.ts): the
// suites create and delete well over a hundred thousand files (a copied database cluster of
// about a thousand files for each embedded database a service opens). Measured on this machine: vitest 798 -> 662 s, system CPU 371 -> 252 s
// (together with copying those clusters in native code).
const tempRoot = testTempRoot();
if (tempRoot !== null) process.env["TMPDIR"] = tempRoot;

// One run for the whole workspace, one project per package (each package keeps its own
// vitest.config.ts). Workspace packages are resolved to their TypeScript sources through
// the "@talkide/source" export condition, so tests never depend on a stale build.
export default defineConfig({
  test: {
    projects: ["packages/*", "apps/*", "runtimes/kotlin", "scripts"],
    reporters: ["default", "./scripts/summary-reporter.ts"],
    // Three files at a time on two cores (`vitest run --maxWorkers=3` in the root `test:all`
    // script: vitest 5 does not hand a root `maxWorkers` to the projects). A third of a file's
    // time is waiting (leases, timeouts, child processes), so a third file fills the cores those
    // waits leave idle: 838 -> 726 s for vitest, every test passing. The longest files start first, so
    // that none of them runs alone at the end while the other workers have nothing left.
    sequence: { sequencer: LongFilesFirstSequencer },
    // One PostgreSQL server for the run instead of one per test file (TALKIDE_TEST_PG_URL).
    globalSetup: ["./packages/test-postgres/src/global-setup.ts"],
  },
});
