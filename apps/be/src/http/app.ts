import cookie from "@fastify/cookie";
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import {
  ApiError,
  createHttpApp,
  DEFAULT_CONNECTION_LIMITS,
  sendProblem,
  type ConnectionLimits,
} from "@talkide/service-kit";
import { registerAccountRoutes } from "./account.ts";
import { registerAdminRoutes } from "./admin.ts";
import { registerAuth } from "./auth.ts";
import { registerConsole } from "./console.ts";
import type { AppDependencies } from "./context.ts";
import { registerInviteRoutes } from "./invites.ts";
import { registerPortsRoute } from "./ports.ts";
import { registerRoutes } from "./routes.ts";
import { registerSecurityHeaders } from "./security-headers.ts";
import { registerUsageRoute } from "./usage.ts";

/** The backend's wording of Fastify's own refusals (apps/be/API.md). */
const WORDING = {
  payloadTooLarge: "The request body is larger than the service accepts (1 MiB).",
  unsupportedMediaType: "Send the request body as JSON with Content-Type: application/json.",
  badRequest: "The request could not be processed.",
};

export async function buildApp(
  deps: AppDependencies,
  logger: FastifyBaseLogger,
  limits: ConnectionLimits = DEFAULT_CONNECTION_LIMITS,
): Promise<FastifyInstance> {
  const app = createHttpApp({
    logger,
    // Every error as application/problem+json.
    send: sendProblem,
    wording: WORDING,
    internalErrorMessage:
      "The service failed to handle this request; the service log has the details.",
    notFound: () =>
      new ApiError(404, "route_not_found", "See apps/be/README.md for the API's routes.", {
        title: "No such route",
      }),
    // Slow headers and bodies time out with 408 (TALKIDE_HTTP_*_TIMEOUT_MS); one address
    // cannot hold every file descriptor (TALKIDE_HTTP_MAX_CONNECTIONS_PER_ADDRESS).
    limits,
    // Request ids are generated, never taken from a client header.
    requestIdHeader: false,
    // Routine request lines at debug: the start banner stays in view (TALKIDE_LOG_LEVEL=debug).
    quietRequestLog: true,
  });
  await app.register(cookie);
  await registerSecurityHeaders(app, deps.accounts.publicUrl);
  registerAuth(app, deps);
  registerAccountRoutes(app, deps);
  registerRoutes(app, deps);
  registerPortsRoute(app, deps);
  registerUsageRoute(app, deps);
  registerInviteRoutes(app, deps);
  registerAdminRoutes(app, deps);
  registerConsole(app, deps.consoleDir ?? null);
  return app;
}
