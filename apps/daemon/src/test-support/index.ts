/** What other workspace packages' tests use to run a real daemon (source only, never built). */
export {
  ApiClient,
  makeTempDir,
  removeDir,
  seedPgliteDataDir,
  startTestDaemon,
  waitFor,
  type TestDaemon,
} from "./harness.ts";
export { pgliteBackend, postgresBackend, type Backend } from "./backends.ts";
export {
  capturingLogger,
  errorShapeFault,
  expectHostileBodiesRefused,
  snapshotDatabase,
  type HostileRoute,
} from "./hostile-routes.ts";
