/** Stores events of a turn and announces them to every instance following the turn. */
import { sql, type Kysely } from "kysely";
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

/**
 * The terminal event of a turn that no live turn holds (settled while queued, or after its
 * instance was gone): appended after whatever the turn stored, and announced at commit, so
 * every stream of the turn ends. Runs in the caller's transaction, beside the record's update.
 */
export async function appendTerminalEvent(
  trx: Kysely<DatabaseSchema>,
  turnId: string,
  type: "turn.failed" | "turn.stopped",
  data: Record<string, unknown>,
): Promise<void> {
  await trx
    .with("stored", (cte) =>
      cte
        .insertInto("turn_events")
        .values({
          turn_id: turnId,
          seq: sql<number>`(SELECT COALESCE(MAX(seq), 0) + 1 FROM turn_events WHERE turn_id = ${turnId})`,
          type,
          data: JSON.stringify(data),
        })
        .returning("seq"),
    )
    .selectFrom("stored")
    .select(announcement(turnId).as("announced"))
    .execute();
}
