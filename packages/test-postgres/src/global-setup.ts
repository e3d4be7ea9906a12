import type { TestProject } from "vitest/node";
import { postgresBinariesAvailable, startPostgresServer } from "./server.ts";

/** The projects whose suites use a PostgreSQL server (through TALKIDE_TEST_PG_URL or their own). */
const SERVER_PROJECTS = new Set(["be", "daemon", "hub", "work-queue"]);

/**
 * vitest global setup (the root vitest.config.ts): one throwaway PostgreSQL server for the
 * whole run, handed to every suite as `TALKIDE_TEST_PG_URL` (each suite still creates its own
 * database on it). Without it, every test file started and stopped a server of its own: an
 * initdb and a start, seconds of CPU each, in about fifteen files.
 *
 * Nothing happens when `TALKIDE_TEST_PG_URL` is already set, when no server binaries are
 * installed (the suites then skip loudly, or fail under CI=true, as before), or when the run
 * has no project that needs a server.
 */
export default async function setup(
  project: TestProject,
): Promise<(() => Promise<void>) | undefined> {
  const configured = process.env["TALKIDE_TEST_PG_URL"];
  if (configured !== undefined && configured !== "") return undefined;
  if (!postgresBinariesAvailable()) return undefined;
  if (!project.vitest.projects.some((candidate) => SERVER_PROJECTS.has(candidate.name))) {
    return undefined;
  }
  // Killed by a signal (concurrently's --kill-others-on-fail, Ctrl-C, SIGKILL), vitest runs no
  // teardown: the server's watchdog then stops it once this process is gone.
  const server = await startPostgresServer({ stopWhenProcessExits: process.pid });
  // Test workers start after global setup and inherit this environment.
  process.env["TALKIDE_TEST_PG_URL"] = server.url;
  return async () => {
    delete process.env["TALKIDE_TEST_PG_URL"];
    await server.stop();
  };
}
