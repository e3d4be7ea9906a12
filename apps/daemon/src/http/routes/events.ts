import { retiredNameOf } from "@talkide/be-api";
import type { FastifyInstance } from "fastify";
import type { DaemonDb } from "../../db/schema.ts";
import type { EventBus } from "../../events/bus.ts";
import { requireScope } from "../auth.ts";

/**
 * `GET /v1/events`: server-sent events, one per daemon event (`event: turn.started`, …,
 * `data:` the event as JSON). A comment line every 15 s keeps proxies from closing it.
 *
 * An event whose name replaced one of the daemon's former names (`RETIRED_EVENT_NAMES`:
 * `turn.finished` is `turn.succeeded`, `session.invalidated` is `session.reset`) is followed,
 * until that list is emptied in 0.4.0, by a second frame under the former name with the data
 * that release sent (`type` the former name). Two frames, not one with an alias field: a client
 * that listens for the old name by the frame's name (`EventSource.addEventListener`) or by
 * `type` still gets its event, and a client that knows one of the names ignores the other
 * frame as it ignores any unknown event, so neither sees the event twice.
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
      const retired = retiredNameOf(event.type);
      res.write(
        frame(event.type, event) +
          (retired === null ? "" : frame(retired, { ...event, type: retired })),
      );
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

function frame(name: string, data: object): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}
