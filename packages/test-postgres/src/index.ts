export { createTestDatabase, type TestDatabase } from "./database.ts";
export {
  findPostgresBinDir,
  type PostgresServer,
  postgresBinariesAvailable,
  postgresSuiteCanRun,
  type StartPostgresServerOptions,
  startPostgresServer,
} from "./server.ts";
export { startDetachedWatchdog } from "./detached-watchdog.ts";
