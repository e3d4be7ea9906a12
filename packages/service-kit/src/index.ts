/**
 * Building blocks of a small HTTP service with its own database and admin CLI, shared by the
 * daemon (`apps/daemon`) and the local message hub (`apps/hub`). Nothing here knows either
 * service's tables, routes or configuration.
 */
export {
  ADMIN_TOKEN_FILE,
  loadOrCreateAdminToken,
  lockDataDir,
  type DataDirOwner,
} from "./data-dir.ts";
export { openDatabase, type DatabaseKind } from "./db/database.ts";
export { migrateToLatest, type MigrationFolder } from "./db/migrate.ts";
export { openServiceDatabase } from "./service-database.ts";
export { ApiError, errorBody } from "./http/api-error.ts";
export { BODY_LIMIT_BYTES, mapFastifyError } from "./http/fastify-errors.ts";
export { httpUrl } from "./http/http-url.ts";
export { parseInput } from "./http/validation.ts";
export { createLogger, type Logger } from "./logger.ts";
export { AdminClient, CliError } from "./cli/admin-client.ts";
export { runProgram } from "./cli/run-program.ts";
export { ConfigError, parseEnvironment } from "./environment.ts";
