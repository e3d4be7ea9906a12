export { createTestDatabase, type TestDatabase } from "./database.ts";
export {
  findPostgresBinDir,
  type PostgresServer,
  postgresBinariesAvailable,
  startPostgresServer,
} from "./server.ts";
