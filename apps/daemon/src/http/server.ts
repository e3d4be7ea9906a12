import type { FastifyInstance } from "fastify";
import {
  ApiError,
  createHttpApp,
  sendErrorBody,
  type DatabaseKind,
  type Logger,
} from "@talkide/service-kit";
import type { DaemonDb } from "../db/schema.ts";
import type { EventBus } from "../events/bus.ts";
import type { IntakeResult } from "../intake/accept-delivery.ts";
import { countDeliveriesByState } from "../store/deliveries.ts";
import { requireScope } from "./auth.ts";
import { registerAgentRoutes, type AgentUsage } from "./routes/agents.ts";
import { registerEventRoutes } from "./routes/events.ts";
import { registerIntakeRoute } from "./routes/intake.ts";
import { registerReadRoutes } from "./routes/read-api.ts";
import { registerRetryRoute } from "./routes/retry.ts";
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
  /** An agent's spend today and this month at the model gateway (`GET /v1/agents/:id/usage`). */
  readonly usage: AgentUsage;
  /** Puts a failed delivery back in line; false when it was not failed. */
  readonly retry: (deliveryId: string) => Promise<boolean>;
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
  const app = createHttpApp({
    logger: deps.logger.child({ component: "http" }),
    send: sendErrorBody,
    internalErrorMessage: "The daemon failed; see its log.",
    notFound: () =>
      new ApiError(404, "not_found", "No such endpoint; see the daemon's README for the API."),
    // Request ids in logs tie a refusal to the caller's request without logging content.
    requestIdHeader: "x-request-id",
  });

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
  registerAgentRoutes(app, deps.db, deps.events, deps.claudeConfigDir, deps.usage);
  registerReadRoutes(app, deps.db);
  registerRetryRoute(app, deps.db, deps.events, deps.retry);
  registerTokenRoutes(app, deps.db);
  registerEventRoutes(app, deps.db, deps.events, deps.closing);
  return app;
}
