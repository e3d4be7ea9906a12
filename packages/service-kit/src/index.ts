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
export {
  ApiError,
  errorBody,
  problemBody,
  sendErrorBody,
  sendProblem,
  type ApiErrorDetails,
} from "./http/api-error.ts";
export { createHttpApp, type HttpAppOptions } from "./http/create-http-app.ts";
export { refusalOf, type SendApiError } from "./http/error-handler.ts";
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
export { generateToken, hashToken, sameSecret } from "./auth/token-hash.ts";
export {
  bearerChallenge,
  bearerRefusal,
  readBearer,
  type BearerCredential,
  type BearerSeparator,
} from "./auth/bearer.ts";
export { Cleanups } from "./service/cleanups.ts";
export { listen } from "./service/listen.ts";
export { stopSignal } from "./service/stop-signal.ts";
export { AdminClient, CliError } from "./cli/admin-client.ts";
export { runProgram } from "./cli/run-program.ts";
export { resolveAdminToken } from "./cli/admin-token.ts";
export { ConfigError, parseEnvironment, type ConfigIssue } from "./environment.ts";
export {
  LOG_LEVELS,
  parseServiceEnvironment,
  type LogLevel,
  type ServiceSettings,
  type ServiceVariables,
} from "./settings.ts";
