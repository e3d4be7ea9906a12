import type { FastifyInstance } from "fastify";
import type { DaemonDb } from "../../db/schema.ts";
import type { EventBus } from "../../events/bus.ts";
import { requireScope } from "../auth.ts";

/**
 * `GET /v1/events`: server-sent events, one per daemon event (`event: turn.started`, …,
 * `data:` the event as JSON). A comment line every 15 s keeps proxies from closing it.
 */
export function registerEventRoutes(
  app: FastifyInstance,
  db: DaemonDb,
  events: EventBus,
  closing: AbortSignal,
): void {
  app.get("/v1/events", { preHandler: requireScope(db, []) }, (request, reply) => {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    });
    res.write(": connected\n\n");
    const unsubscribe = events.subscribe((event) => {
      res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    });
    const keepAlive = setInterval(() => res.write(": keep-alive\n\n"), 15_000);
    const end = () => {
      clearInterval(keepAlive);
      unsubscribe();
      closing.removeEventListener("abort", end);
      if (!res.writableEnded) res.end();
    };
    request.raw.on("close", end);
    closing.addEventListener("abort", end, { once: true });
  });
}
