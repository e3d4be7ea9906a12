/** Stores one event of a turn and announces it to every instance following the turn. */
import type { Kysely } from "kysely";
import type { DatabaseSchema } from "../db/schema.ts";
import { announceTurnEvent } from "./event-notifications.ts";
import type { TurnEvent } from "./turn-events.ts";

export async function storeTurnEvent(
  db: Kysely<DatabaseSchema>,
  turnId: string,
  event: TurnEvent,
): Promise<void> {
  await db
    .insertInto("turn_events")
    .values({ turn_id: turnId, seq: event.seq, type: event.type, data: JSON.stringify(event.data) })
    .execute();
  await announceTurnEvent(db, turnId);
}
