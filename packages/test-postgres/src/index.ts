export { createTestDatabase, type TestDatabase } from "./database.ts";
export {
  findPostgresBinDir,
  type PostgresServer,
  postgresBinariesAvailable,
  postgresSuiteCanRun,
  startPostgresServer,
} from "./server.ts";
