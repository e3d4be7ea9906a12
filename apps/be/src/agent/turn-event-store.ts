/** Stores events of a turn and announces them to every instance following the turn. */
import type { Kysely } from "kysely";
import type { DatabaseSchema } from "../db/schema.ts";
import { announceTurnEvent } from "./event-notifications.ts";
import type { TurnEvent } from "./turn-events.ts";

/** Several events in one statement and one announcement: a turn's events often come in bursts. */
export async function storeTurnEvents(
  db: Kysely<DatabaseSchema>,
  turnId: string,
  events: readonly TurnEvent[],
): Promise<void> {
  if (events.length === 0) return;
  await insertTurnEvents(db, turnId, events);
  await announceTurnEvent(db, turnId);
}

/**
 * The events without an announcement: for a turn's first event, written with the turn itself,
 * which nobody can follow before that transaction commits.
 */
export async function insertTurnEvents(
  db: Kysely<DatabaseSchema>,
  turnId: string,
  events: readonly TurnEvent[],
): Promise<void> {
  await db
    .insertInto("turn_events")
    .values(
      events.map((event) => ({
        turn_id: turnId,
        seq: event.seq,
        type: event.type,
        data: JSON.stringify(event.data),
      })),
    )
    .execute();
}
