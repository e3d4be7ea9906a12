/**
 * Building blocks of a small HTTP service with its own database and admin CLI, shared by the
 * backend (`apps/be`), the daemon (`apps/daemon`) and the local message hub (`apps/hub`).
 * Nothing here knows a service's tables, routes or configuration.
 */
export {
  ADMIN_TOKEN_FILE,
  loadOrCreateAdminToken,
  lockDataDir,
  makeDataDirPrivate,
  type DataDirOwner,
} from "./data-dir.ts";
export { openDatabase, type DatabaseKind } from "./db/database.ts";
export { migrateToLatest, type MigrationFolder, type MigrationList } from "./db/migrate.ts";
export { openServiceDatabase } from "./service-database.ts";
export { ApiError, errorBody, problemBody, sendProblem } from "./http/api-error.ts";
export {
  BODY_LIMIT_BYTES,
  mapFastifyError,
  type FastifyErrorWording,
} from "./http/fastify-errors.ts";
export {
  DEFAULT_CONNECTION_LIMITS,
  connectionTimeoutOptions,
  limitConnectionsPerAddress,
  type ConnectionLimits,
} from "./http/connection-limits.ts";
export { httpUrl } from "./http/http-url.ts";
export { parseInput } from "./http/validation.ts";
export { createLogger, type Logger } from "./logger.ts";
export { AdminClient, CliError } from "./cli/admin-client.ts";
export { runProgram } from "./cli/run-program.ts";
export { ConfigError, parseEnvironment, type ConfigIssue } from "./environment.ts";
