import cookie from "@fastify/cookie";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import {
  DEFAULT_CONNECTION_LIMITS,
  connectionTimeoutOptions,
  limitConnectionsPerAddress,
  type ConnectionLimits,
} from "@talkide/service-kit";
import { urlFaultOf, useStrictJsonBodies, useStrictUrls } from "@talkide/strict-json";
import { registerAccountRoutes } from "./account.ts";
import { registerAdminRoutes } from "./admin.ts";
import { registerAuth } from "./auth.ts";
import { registerConsole } from "./console.ts";
import type { AppDependencies } from "./context.ts";
import { errorHandler } from "./problem.ts";
import { registerInviteRoutes } from "./invites.ts";
import { registerPortsRoute } from "./ports.ts";
import { QuietRequestLog } from "./request-log.ts";
import { registerRoutes } from "./routes.ts";
import { registerSecurityHeaders } from "./security-headers.ts";
import { registerUsageRoute } from "./usage.ts";

export async function buildApp(
  deps: AppDependencies,
  logger: FastifyBaseLogger,
  limits: ConnectionLimits = DEFAULT_CONNECTION_LIMITS,
): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: logger,
    // Slow headers and bodies time out with 408 (TALKIDE_HTTP_*_TIMEOUT_MS).
    ...connectionTimeoutOptions(limits),
    // Routine request lines at debug: the start banner stays in view (TALKIDE_LOG_LEVEL=debug).
    logController: new QuietRequestLog(),
    bodyLimit: 1024 * 1024,
    // Request ids are generated, never taken from a client header.
    requestIdHeader: false,
    return503OnClosing: true,
    // The router's own refusals (a percent-encoding that is not UTF-8, an overlong path
    // parameter) would otherwise answer in Fastify's shape, repeating the path.
    frameworkErrors: (error, request, reply) => {
      void errorHandler(urlFaultOf(error), request, reply);
    },
  });
  // One address cannot hold every file descriptor (TALKIDE_HTTP_MAX_CONNECTIONS_PER_ADDRESS).
  limitConnectionsPerAddress(app.server, limits.maxConnectionsPerAddress);
  // JSON only: a text/plain body would otherwise reach the handlers as a string.
  app.removeContentTypeParser("text/plain");
  // UTF-8 only, and no string PostgreSQL cannot store: refused with a stable code before any
  // handler runs, so a bad body changes nothing.
  useStrictJsonBodies(app);
  app.setErrorHandler(errorHandler);
  // Path and query values by the same text rules, before authentication and every route
  // (those of today and any added later).
  useStrictUrls(app);
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
