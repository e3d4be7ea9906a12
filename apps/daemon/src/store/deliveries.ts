import { randomUUID } from "node:crypto";
import { engineDb, processMarkersOf } from "@talkide/turn-engine";
import { sql } from "kysely";
import type { DaemonDb, DeliveryRow, DeliveryState } from "../db/schema.ts";
import { interruptTurnsOf } from "./turns.ts";

/**
 * Deliveries move through `accepted → running → completed | failed`. Every move is one
 * conditional UPDATE on the row's current state, so a delivery can never be claimed twice,
 * and the database (a partial unique index) refuses a second running delivery in a session.
 */

export interface NewDelivery {
  readonly agentId: string;
  readonly messageId: string;
  readonly conversationId: string;
  readonly reason: string | null;
  readonly payload: unknown;
}

/** Stores a delivery once per (agent, message). A repeat returns the stored one, unchanged. */
export async function insertDelivery(
  db: DaemonDb,
  input: NewDelivery,
): Promise<
  { readonly duplicate: boolean; readonly delivery: DeliveryRow } | { readonly unknownAgent: true }
> {
  const inserted = await db
    .insertInto("deliveries")
    .values({
      id: randomUUID(),
      agent_id: input.agentId,
      message_id: input.messageId,
      conversation_id: input.conversationId,
      reason: input.reason,
      payload: JSON.stringify(input.payload),
    })
    .onConflict((oc) => oc.columns(["agent_id", "message_id"]).doNothing())
    .returningAll()
    .executeTakeFirst()
    .catch((error: unknown) => {
      // The agent is checked by its foreign key, in the same statement as the insert.
      if (hasCode(error, "23503")) return "unknown_agent" as const;
      throw error;
    });
  if (inserted === "unknown_agent") return { unknownAgent: true };
  if (inserted !== undefined) return { duplicate: false, delivery: inserted };
  const existing = await db
    .selectFrom("deliveries")
    .selectAll()
    .where("agent_id", "=", input.agentId)
    .where("message_id", "=", input.messageId)
    .executeTakeFirstOrThrow();
  return { duplicate: true, delivery: existing };
}

/** A claimed delivery with its agent's workspace (one round trip: this is on every turn's path). */
export type ClaimedDelivery = DeliveryRow & { readonly workspace_dir: string };

/**
 * Claims one delivery for its turn (accepted → running, one more attempt), with its agent's
 * workspace (the conversation's open session is the engine's store's: `openSession`).
 * Undefined when it is no longer waiting (run or failed already). The work queue runs one job
 * per conversation at a time; the partial unique index on running deliveries stays as the
 * database's own guard.
 */
export async function claimDelivery(
  db: DaemonDb,
  id: string,
): Promise<ClaimedDelivery | undefined> {
  const result = await sql<ClaimedDelivery>`
    with claimed as (
    update deliveries
       set state = 'running', attempts = attempts + 1, started_at = now()
     where id = ${id} and state = 'accepted'
    returning *)
    select claimed.*, agents.workspace_dir
      from claimed
      join agents on agents.id = claimed.agent_id`.execute(db);
  return result.rows[0];
}

export async function failDelivery(
  db: DaemonDb,
  id: string,
  reason: string,
  message: string,
): Promise<boolean> {
  const r = await db
    .updateTable("deliveries")
    .set({
      state: "failed",
      finished_at: new Date(),
      failure_reason: reason,
      failure_message: message,
    })
    .where("id", "=", id)
    .where("state", "=", "running")
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/** Puts a running delivery back in line (the daemon is stopping before the turn ended). */
export async function requeueDelivery(db: DaemonDb, id: string): Promise<boolean> {
  const r = await db
    .updateTable("deliveries")
    .set({ state: "accepted", started_at: null })
    .where("id", "=", id)
    .where("state", "=", "running")
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/**
 * Puts a failed delivery back in line (an operator's retry, once a usage limit allows, say):
 * its failure is cleared and it waits as a new one would; `attempts` goes on counting its
 * starts. False when it was not failed (nothing changes).
 */
export async function retryDelivery(db: DaemonDb, id: string): Promise<boolean> {
  const r = await db
    .updateTable("deliveries")
    .set({
      state: "accepted",
      started_at: null,
      finished_at: null,
      failure_reason: null,
      failure_message: null,
    })
    .where("id", "=", id)
    .where("state", "=", "failed")
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

export interface AbandonedDelivery {
  /** The turns that were running; their processes may still be alive on some machine. */
  readonly turnIds: readonly string[];
  /** What those processes carry as their turn marker (`TALKIDE_TURN_ID`, or `TICLAWK_TURN_ID` from 0.2.x): the turn ids and, for warm turns, the id of the turn that started the process. */
  readonly processMarkers: readonly string[];
  /** `requeued`: back in line for another attempt; `failed`: out of attempts. */
  readonly outcome: "requeued" | "failed";
  readonly agentId: string;
  readonly attempts: number;
}

/**
 * A running delivery whose daemon stopped renewing its lease (killed, crashed, cut off), or
 * whose daemon was killed on the embedded database: its running turns become `interrupted`
 * with `reason` and `message`, and the delivery goes back in line, unless it has been started
 * `maxAttempts` times, when it fails with `interrupted` (a delivery that keeps killing daemons
 * must not keep killing them). Undefined when the delivery was not running (another daemon
 * handled it first): nothing changes.
 */
export async function abandonDelivery(
  db: DaemonDb,
  id: string,
  reason: string,
  message: string,
  maxAttempts: number,
): Promise<AbandonedDelivery | undefined> {
  const turnIds = await interruptTurnsOf(db, id, { code: reason, message });
  const failed = await db
    .updateTable("deliveries")
    .set({
      state: "failed",
      finished_at: new Date(),
      failure_reason: "interrupted",
      failure_message: `the daemon stopped during each of ${maxAttempts} attempts; not retried again`,
    })
    .where("id", "=", id)
    .where("state", "=", "running")
    .where("attempts", ">=", maxAttempts)
    .returning(["agent_id", "attempts"])
    .executeTakeFirst();
  const requeued =
    failed === undefined
      ? await db
          .updateTable("deliveries")
          .set({ state: "accepted", started_at: null })
          .where("id", "=", id)
          .where("state", "=", "running")
          .returning(["agent_id", "attempts"])
          .executeTakeFirst()
      : undefined;
  const row = failed ?? requeued;
  if (row === undefined) return undefined;
  return {
    turnIds,
    processMarkers: await processMarkersOf(engineDb(db), turnIds),
    outcome: failed === undefined ? "requeued" : "failed",
    agentId: row.agent_id,
    attempts: row.attempts,
  };
}

export interface DeliveryFilter {
  readonly agentId?: string | undefined;
  readonly conversationId?: string | undefined;
  readonly state?: DeliveryState | undefined;
  /** Only deliveries accepted before this sequence number (paging backwards). */
  readonly beforeSeq?: number | undefined;
  readonly limit: number;
}

/** Newest first. */
export async function listDeliveries(
  db: DaemonDb,
  filter: DeliveryFilter,
): Promise<readonly DeliveryRow[]> {
  let q = db.selectFrom("deliveries").selectAll();
  if (filter.agentId !== undefined) q = q.where("agent_id", "=", filter.agentId);
  if (filter.conversationId !== undefined)
    q = q.where("conversation_id", "=", filter.conversationId);
  if (filter.state !== undefined) q = q.where("state", "=", filter.state);
  if (filter.beforeSeq !== undefined) q = q.where("seq", "<", filter.beforeSeq);
  return q.orderBy("seq", "desc").limit(filter.limit).execute();
}

export async function getDelivery(db: DaemonDb, id: string): Promise<DeliveryRow | undefined> {
  return db.selectFrom("deliveries").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function countDeliveriesByState(db: DaemonDb): Promise<Record<DeliveryState, number>> {
  const rows = await db
    .selectFrom("deliveries")
    .select(["state", sql<number>`count(*)::int`.as("n")])
    .groupBy("state")
    .execute();
  const counts: Record<DeliveryState, number> = {
    accepted: 0,
    running: 0,
    completed: 0,
    failed: 0,
  };
  for (const row of rows) counts[row.state] = row.n;
  return counts;
}

/** A PostgreSQL error with this SQLSTATE (node-postgres and PGlite both expose `code`). */
function hasCode(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && "code" in error && error.code === code;
}
