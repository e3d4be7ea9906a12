/** Stores events of a turn and announces them to every instance following the turn. */
import type { Kysely } from "kysely";
import type { DatabaseSchema } from "../db/schema.ts";
import { announcement } from "./event-notifications.ts";
import type { TurnEvent } from "./turn-events.ts";

/**
 * Several events and their one announcement in one statement (a turn's events often come in
 * bursts): the announcement is sent as the insert commits, and a round trip fewer keeps the
 * embedded database, which runs in this thread, free for the turn's own statements.
 */
export async function storeTurnEvents(
  db: Kysely<DatabaseSchema>,
  turnId: string,
  events: readonly TurnEvent[],
): Promise<void> {
  if (events.length === 0) return;
  await db
    .with("stored", (cte) =>
      cte.insertInto("turn_events").values(rows(turnId, events)).returning("seq"),
    )
    .selectFrom("stored")
    .select(announcement(turnId).as("announced"))
    .limit(1)
    .execute();
}

function rows(turnId: string, events: readonly TurnEvent[]) {
  return events.map((event) => ({
    turn_id: turnId,
    seq: event.seq,
    type: event.type,
    data: JSON.stringify(event.data),
  }));
}
