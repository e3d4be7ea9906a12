import { isTerminalEvent, type StoredTurnEvent } from "@talkide/be-api";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Kysely } from "kysely";
import type { TurnRunner } from "../agent/turn-runner.ts";
import type { DatabaseSchema } from "../db/schema.ts";
import { loadTurnEvents } from "../domain/turns.ts";
import { openEventStream } from "./event-stream.ts";

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
  const stream = openEventStream(request, reply, {
    ...(options.status === undefined ? {} : { status: options.status }),
    ...(options.stillAllowed === undefined ? {} : { stillAllowed: options.stillAllowed }),
  });

  const live = options.runner.hub.get(options.turnId);
  const state = live === undefined ? await turnState(options.db, options.turnId) : "open";
  if (state === "gone") {
    stream.finish();
    return;
  }
  if (state === "finished") {
    const stored = await loadTurnEvents(options.db, options.turnId);
    // The record says finished; once its terminal event is stored too, nothing more will be
    // announced. The instance that ran it stores that event just after the record, so in
    // between the stream follows the announcements below, as for a running turn.
    if (stored.some(isTerminalEvent)) {
      for (const event of stored) {
        if (event.seq > after) stream.write(frame(event));
      }
      stream.finish();
      return;
    }
  }

  let sent = after;
  const finishSoon = (): void => {
    queueMicrotask(stream.finish);
  };
  const write = (event: StoredTurnEvent): void => {
    if (stream.isFinished() || event.seq <= sent) return;
    sent = event.seq;
    stream.write(frame(event));
    if (isTerminalEvent(event)) finishSoon();
  };

  if (live !== undefined) {
    stream.onFinish(live.subscribe(write, finishSoon));
    await stream.ended;
    return;
  }
  // Reads are chained, so events go out once each and in order however notifications bunch.
  let reading: Promise<void> = Promise.resolve();
  const readStored = (): void => {
    reading = reading.then(async () => {
      if (stream.isFinished()) return;
      for (const event of await loadTurnEvents(options.db, options.turnId)) write(event);
    });
    reading.catch(() => {
      stream.finish();
    });
  };
  // Queued or running, here or on another instance: every event until the terminal one is
  // stored and announced. Follow first, then read: an event stored in between is not lost.
  const stopNotifications = options.runner.notifications.follow(
    options.turnId,
    readStored,
    finishSoon,
  );
  // Once this instance runs the turn, its events come from memory as they happen, with no
  // wait for each one's storage and announcement. The live turn holds every event so far,
  // and `write` skips what was sent, so the switch loses and repeats nothing.
  let unsubscribe: (() => void) | null = null;
  const stopWaiting = options.runner.hub.whenOpen(options.turnId, (turn) => {
    if (stream.isFinished()) return;
    stopNotifications();
    unsubscribe = turn.subscribe(write, finishSoon);
  });
  stream.onFinish(() => {
    stopWaiting();
    stopNotifications();
    unsubscribe?.();
  });
  readStored();
  await stream.ended;
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
