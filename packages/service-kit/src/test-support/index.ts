/**
 * What the tests of a service built on the kit use (source only, never built): temporary data
 * directories, a ready embedded database cluster, a watchdog for the services a test starts as
 * processes, the PGlite and PostgreSQL backends a suite
 * runs on, polling, an HTTP client, and the checks every service's routes must pass (hostile
 * bodies refused without a trace, the error shape).
 */
export { makeTempDir, removeDir } from "./temp-dir.ts";
export {
  copyCluster,
  filesIn,
  migratedPgliteSeeder,
  migrationFoldersSeeder,
  seededPgliteCluster,
  seedPgliteDataDir,
} from "./pglite-seed.ts";
export { waitFor } from "./wait-for.ts";
export { compileCacheEnv, NODE_FROM_SOURCE } from "./node-from-source.ts";
export { stopWithOwner } from "./stop-with-owner.ts";
export { endConnectionsAndAwaitReport } from "./end-connections.ts";
export { ApiClient, type ApiResponse } from "./api-client.ts";
export { rawAnswers, type RawAnswer, type RawRequest } from "./raw-answers.ts";
export { pgliteBackend, postgresBackend, type Backend } from "./backends.ts";
export {
  capturingLogger,
  errorShapeFault,
  expectHostileBodiesRefused,
  snapshotDatabase,
  type HostileRoute,
} from "./hostile-routes.ts";
