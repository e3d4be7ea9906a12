import type { FastifyReply, FastifyRequest } from "fastify";
import type { Kysely } from "kysely";
import { TERMINAL_EVENT_TYPES, type TurnEvent, type TurnEventHub } from "../agent/turn-events.ts";
import type { DatabaseSchema } from "../db/schema.ts";
import { loadTurnEvents } from "../domain/turns.ts";

const KEEP_ALIVE_MS = 15_000;

function frame(event: TurnEvent): string {
  // JSON never contains a raw line break, so one data line carries the whole event.
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

function lastEventId(request: FastifyRequest): number {
  const header = request.headers["last-event-id"];
  const value = Number.parseInt(Array.isArray(header) ? (header[0] ?? "") : (header ?? ""), 10);
  return Number.isInteger(value) && value > 0 ? value : 0;
}

/**
 * Streams a turn's events as server-sent events: everything so far (after `Last-Event-ID`
 * when the client reconnects), then each new event as it happens; the stream ends after the
 * terminal event (turn.succeeded or turn.failed).
 */
export async function streamTurnEvents(
  request: FastifyRequest,
  reply: FastifyReply,
  options: { db: Kysely<DatabaseSchema>; hub: TurnEventHub; turnId: string; status?: number },
): Promise<void> {
  const after = lastEventId(request);
  reply.hijack();
  const res = reply.raw;
  res.writeHead(options.status ?? 200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });

  const live = options.hub.get(options.turnId);
  if (live === undefined) {
    // Finished: every event is stored.
    for (const event of await loadTurnEvents(options.db, options.turnId)) {
      if (event.seq > after) {
        res.write(
          frame({ seq: event.seq, type: event.type, data: event.data as Record<string, unknown> }),
        );
      }
    }
    res.end();
    return;
  }

  await new Promise<void>((resolve) => {
    let unsubscribe: (() => void) | null = null;
    let finished = false;
    const keepAlive = setInterval(() => res.write(": keep-alive\n\n"), KEEP_ALIVE_MS);
    const finish = (): void => {
      if (finished) return;
      finished = true;
      clearInterval(keepAlive);
      unsubscribe?.();
      res.end();
      resolve();
    };
    request.raw.socket.once("close", finish);
    res.once("close", finish);
    unsubscribe = live.subscribe((event) => {
      if (finished) return;
      if (event.seq > after) res.write(frame(event));
      if (TERMINAL_EVENT_TYPES.has(event.type)) queueMicrotask(finish);
    });
  });
}
