import { isTerminalEvent, type StoredTurnEvent } from "@talkide/be-api";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Kysely } from "kysely";
import type { TurnRunner } from "../agent/turn-runner.ts";
import type { DatabaseSchema } from "../db/schema.ts";
import { loadTurnEvents } from "../domain/turns.ts";

const KEEP_ALIVE_MS = 15_000;
/**
 * How often an open stream asks again whether its reader may still read (removed from the
 * project, signed out, token revoked): access ends within this, not at the turn's end.
 */
const ACCESS_CHECK_MS = 2_000;

/** Any stored event, known to this release or not, goes out as it was stored. */
function frame(event: StoredTurnEvent): string {
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
 * terminal event (turn.succeeded or turn.failed), which every finished turn has. A turn this instance follows in memory is
 * streamed from there; any other turn (finished, or queued or running on another instance)
 * from the stored events, read again each time the database announces a new one.
 */
export async function streamTurnEvents(
  request: FastifyRequest,
  reply: FastifyReply,
  options: {
    db: Kysely<DatabaseSchema>;
    runner: TurnRunner;
    turnId: string;
    status?: number;
    /** Whether the reader may still read; the stream ends once this says no. */
    stillAllowed?: () => Promise<boolean>;
  },
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

  const live = options.runner.hub.get(options.turnId);
  const state = live === undefined ? await turnState(options.db, options.turnId) : "open";
  if (state === "gone") {
    res.end();
    return;
  }
  if (state === "finished") {
    const stored = await loadTurnEvents(options.db, options.turnId);
    // The record says finished; once its terminal event is stored too, nothing more will be
    // announced. The instance that ran it stores that event just after the record, so in
    // between the stream follows the announcements below, as for a running turn.
    if (stored.some(isTerminalEvent)) {
      for (const event of stored) {
        if (event.seq > after) res.write(frame(event));
      }
      res.end();
      return;
    }
  }

  await new Promise<void>((resolve) => {
    let stopFollowing: (() => void) | null = null;
    let finished = false;
    let sent = after;
    const keepAlive = setInterval(() => res.write(": keep-alive\n\n"), KEEP_ALIVE_MS);
    const { stillAllowed } = options;
    const accessCheck =
      stillAllowed === undefined
        ? undefined
        : setInterval(() => {
            stillAllowed().then(
              (allowed) => {
                if (!allowed) finish();
              },
              () => {
                finish();
              },
            );
          }, ACCESS_CHECK_MS);
    const finish = (): void => {
      if (finished) return;
      finished = true;
      clearInterval(keepAlive);
      clearInterval(accessCheck);
      // A kept-alive socket serves many requests: its listener must not outlive this one.
      request.raw.socket.off("close", finish);
      res.off("close", finish);
      stopFollowing?.();
      res.end();
      resolve();
    };
    const write = (event: StoredTurnEvent): void => {
      if (finished || event.seq <= sent) return;
      sent = event.seq;
      res.write(frame(event));
      if (isTerminalEvent(event)) queueMicrotask(finish);
    };
    request.raw.socket.once("close", finish);
    res.once("close", finish);

    if (live !== undefined) {
      stopFollowing = live.subscribe(write, () => {
        queueMicrotask(finish);
      });
      return;
    }
    // Reads are chained, so events go out once each and in order however notifications bunch.
    let reading: Promise<void> = Promise.resolve();
    const readStored = (): void => {
      reading = reading.then(async () => {
        if (finished) return;
        for (const event of await loadTurnEvents(options.db, options.turnId)) write(event);
      });
      reading.catch(() => {
        finish();
      });
    };
    // Queued or running, here or on another instance: every event until the terminal one is
    // stored and announced. Follow first, then read: an event stored in between is not lost.
    const stopNotifications = options.runner.notifications.follow(
      options.turnId,
      readStored,
      () => {
        queueMicrotask(finish);
      },
    );
    // Once this instance runs the turn, its events come from memory as they happen, with no
    // wait for each one's storage and announcement. The live turn holds every event so far,
    // and `write` skips what was sent, so the switch loses and repeats nothing.
    const stopWaiting = options.runner.hub.whenOpen(options.turnId, (turn) => {
      if (finished) return;
      stopNotifications();
      stopFollowing = turn.subscribe(write, () => {
        queueMicrotask(finish);
      });
    });
    stopFollowing ??= () => {
      stopWaiting();
      stopNotifications();
    };
    readStored();
  });
}

async function turnState(
  db: Kysely<DatabaseSchema>,
  turnId: string,
): Promise<"open" | "finished" | "gone"> {
  const row = await db
    .selectFrom("turns")
    .select("status")
    .where("id", "=", turnId)
    .executeTakeFirst();
  if (row === undefined) return "gone";
  return row.status === "queued" || row.status === "running" ? "open" : "finished";
}
