import { sql, type Kysely } from "kysely";
import { ApiError } from "@talkide/service-kit";
import { engineDb, finishRun } from "@talkide/turn-engine";
import type { DatabaseSchema } from "../db/schema.ts";
import type { Membership } from "../domain/membership.ts";
import type { TurnRow } from "../domain/turns.ts";
import { announceStopRequest } from "./event-notifications.ts";
import { projectKey } from "./project-key.ts";
import { appendTerminalEvent } from "./turn-event-store.ts";

/**
 * Any member stops a project's turn (issue 52). A queued turn ends at once as `stopped` (its
 * job finds nothing to claim). A running one is marked with who asked, and every instance is
 * told: the one running it ends its process, and the turn is recorded as stopped with what Mara
 * had answered so far (agent/outcome-store.ts, recordStopped). The project's session is left
 * as its last finished turn left it, so the next message continues the conversation.
 */
export async function stopTurn(
  db: Kysely<DatabaseSchema>,
  membership: Membership,
  turn: TurnRow,
  isLiveHere: boolean,
): Promise<void> {
  if (turn.status !== "queued" && turn.status !== "running") throw turnFinished();
  // A turn whose own message started it here is live before its record says running.
  if (turn.status === "queued" && !isLiveHere && (await stopQueued(db, membership, turn))) return;
  const marked = await db
    .updateTable("turns")
    .set({ stopped_by: membership.memberId })
    .where("id", "=", turn.id)
    .where("status", "in", ["queued", "running"])
    .returning("id")
    .executeTakeFirst();
  if (marked === undefined) throw turnFinished();
  await announceStopRequest(db, turn.id);
}

async function stopQueued(
  db: Kysely<DatabaseSchema>,
  membership: Membership,
  turn: TurnRow,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const stopped = await trx
      .updateTable("turns")
      .set({
        status: "stopped",
        stopped_by: membership.memberId,
        finished_at: sql<string>`clock_timestamp()`,
      })
      .where("id", "=", turn.id)
      .where("status", "=", "queued")
      .returning("id")
      .executeTakeFirst();
    if (stopped === undefined) return false;
    // Its run never started: the engine records it stopped, having cost nothing known.
    await finishRun(engineDb(trx), {
      turnId: turn.id,
      owner: projectKey(turn.project_id),
      outcome: "stopped",
      failure: null,
      figures: null,
    });
    const who = await trx
      .selectFrom("members")
      .select("salutation")
      .where("id", "=", membership.memberId)
      .executeTakeFirstOrThrow();
    await appendTerminalEvent(trx, turn.id, "turn.stopped", {
      turnId: turn.id,
      stoppedBy: who.salutation,
      resultText: null,
      demoModel: false,
    });
    return true;
  });
}

const turnFinished = (): ApiError =>
  new ApiError(409, "turn_finished", "This turn has already finished; there is nothing to stop.", {
    title: "Turn already finished",
  });

/** A failed or stopped turn's message, to send again (by whoever retries it). */
export function retryableMessage(turn: TurnRow): string {
  if (turn.status !== "failed" && turn.status !== "stopped") {
    throw new ApiError(
      409,
      "turn_not_retryable",
      "Only a turn that failed or was stopped can be retried; this one is queued, running or answered.",
      { title: "Nothing to retry" },
    );
  }
  return turn.prompt;
}
