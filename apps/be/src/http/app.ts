import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { useStrictJsonBodies } from "@talkide/strict-json";
import { registerAuth } from "./auth.ts";
import { registerConsole } from "./console.ts";
import type { AppDependencies } from "./context.ts";
import { errorHandler } from "./problem.ts";
import { registerPortsRoute } from "./ports.ts";
import { registerRoutes } from "./routes.ts";

export function buildApp(deps: AppDependencies, logger: FastifyBaseLogger): FastifyInstance {
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: 1024 * 1024,
    // Request ids are generated, never taken from a client header.
    requestIdHeader: false,
    return503OnClosing: true,
  });
  // JSON only: a text/plain body would otherwise reach the handlers as a string.
  app.removeContentTypeParser("text/plain");
  // UTF-8 only, and no string PostgreSQL cannot store: refused with a stable code before any
  // handler runs, so a bad body changes nothing.
  useStrictJsonBodies(app);
  app.setErrorHandler(errorHandler);
  registerAuth(app, deps.db);
  registerRoutes(app, deps);
  registerPortsRoute(app, deps);
  registerConsole(app, deps.consoleDir ?? null);
  return app;
}
