import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
} from "fastify";
import {
  BodyFault,
  UrlFault,
  urlFaultOf,
  useStrictJsonBodies,
  useStrictUrls,
} from "@talkide/strict-json";
import {
  ApiError,
  BODY_LIMIT_BYTES,
  connectionTimeoutOptions,
  DEFAULT_CONNECTION_LIMITS,
  errorBody,
  limitConnectionsPerAddress,
  mapFastifyError,
  type DatabaseKind,
  type Logger,
} from "@talkide/service-kit";
import type { DaemonDb } from "../db/schema.ts";
import type { EventBus } from "../events/bus.ts";
import { IntakeError, type IntakeResult } from "../intake/accept-delivery.ts";
import { countDeliveriesByState } from "../store/deliveries.ts";
import { requireScope } from "./auth.ts";
import { registerAgentRoutes } from "./routes/agents.ts";
import { registerEventRoutes } from "./routes/events.ts";
import { registerIntakeRoute } from "./routes/intake.ts";
import { registerReadRoutes } from "./routes/read-api.ts";
import { registerTokenRoutes } from "./routes/tokens.ts";

export interface ServerDeps {
  readonly db: DaemonDb;
  readonly databaseKind: DatabaseKind;
  readonly events: EventBus;
  readonly logger: Logger;
  readonly hostId: string;
  /** The turns' `CLAUDE_CONFIG_DIR`: a new workspace is checked against it at registration. */
  readonly claudeConfigDir: string;
  readonly accept: (agentId: string, body: unknown) => Promise<IntakeResult>;
  readonly status: () => {
    readonly concurrency: number;
    readonly runningTurns: number;
    readonly claudePath: string;
    readonly claudeVersion: string | null;
    readonly standingPromptVersion: string;
  };
  /** Aborted when the daemon stops: long-lived responses (SSE) end. */
  readonly closing: AbortSignal;
}

export function buildServer(deps: ServerDeps): FastifyInstance {
  const httpLogger: FastifyBaseLogger = deps.logger.child({ component: "http" });
  const handleError = (
    error: FastifyError | ApiError | IntakeError | UrlFault,
    reply: FastifyReply,
  ): FastifyReply => {
    if (error instanceof ApiError) {
      return reply.code(error.httpStatus).send(errorBody(error.code, error.message, error.path));
    }
    if (error instanceof BodyFault || error instanceof UrlFault) {
      return reply.code(error.statusCode).send(errorBody(error.code, error.message, error.path));
    }
    if (error instanceof IntakeError) {
      return reply.code(error.httpStatus).send(errorBody(error.code, error.message, error.path));
    }
    const mapped = mapFastifyError(error);
    if (mapped !== null)
      return reply.code(mapped.httpStatus).send(errorBody(mapped.code, mapped.message));
    deps.logger.error({ err: error }, "request failed");
    return reply.code(500).send(errorBody("internal_error", "The daemon failed; see its log."));
  };
  const app = Fastify({
    loggerInstance: httpLogger,
    // Slow headers and bodies time out with 408 (service-kit's defaults).
    ...connectionTimeoutOptions(DEFAULT_CONNECTION_LIMITS),
    bodyLimit: BODY_LIMIT_BYTES,
    // Request ids in logs tie a refusal to the caller's request without logging content.
    requestIdHeader: "x-request-id",
    // The router's own refusals (a percent-encoding that is not UTF-8, an overlong path
    // parameter) would otherwise answer in Fastify's shape, repeating the path.
    frameworkErrors: (error, _request, reply) => {
      void handleError(urlFaultOf(error), reply);
    },
  });

  // JSON only: a text body would reach validation as a string and blur the error.
  limitConnectionsPerAddress(app.server, DEFAULT_CONNECTION_LIMITS.maxConnectionsPerAddress);
  app.removeContentTypeParser("text/plain");
  // UTF-8 only, and no string PostgreSQL cannot store (NUL, lone surrogates): a 4xx with a
  // stable code before any route runs, on the daemon's routes and on any an extension adds.
  useStrictJsonBodies(app);

  app.setErrorHandler((error: FastifyError | ApiError | IntakeError | UrlFault, _request, reply) =>
    handleError(error, reply),
  );
  // Path and query values by the same text rules, before authentication and every route
  // (the daemon's and any an extension adds).
  useStrictUrls(app);
  app.setNotFoundHandler((_request, reply) =>
    reply
      .code(404)
      .send(errorBody("not_found", "No such endpoint; see the daemon's README for the API.")),
  );

  app.get("/v1/health", () => ({ ok: true, hostId: deps.hostId, database: deps.databaseKind }));

  app.get("/v1/status", { preHandler: requireScope(deps.db, []) }, async () => {
    const counts = await countDeliveriesByState(deps.db);
    const s = deps.status();
    return {
      hostId: deps.hostId,
      database: deps.databaseKind,
      concurrency: s.concurrency,
      runningTurns: s.runningTurns,
      deliveries: counts,
      claude: { path: s.claudePath, version: s.claudeVersion },
      standingPromptVersion: s.standingPromptVersion,
    };
  });

  registerIntakeRoute(app, deps.db, deps.accept);
  registerAgentRoutes(app, deps.db, deps.events, deps.claudeConfigDir);
  registerReadRoutes(app, deps.db);
  registerTokenRoutes(app, deps.db);
  registerEventRoutes(app, deps.db, deps.events, deps.closing);
  return app;
}
